/**
 * The `parapush` command line. Each command lives in its own module under ./commands and adds
 * itself to the program; this file only wires them together and turns errors into exit codes.
 */
import { Command } from 'commander';
import { softwareVersion } from '../session/software-version';
import { registerCommands } from './commands';
import { reportCliError } from './errors';

const program = new Command();
program
  .name('parapush')
  .description('Parareal-accelerated, safety-supervised pushing with a UR5: physics, planning, lab, console')
  .version(softwareVersion().version, '-V, --version', 'print the version')
  // A hint, not the whole help: the error line must stay on screen, not scroll away above it.
  .showHelpAfterError('(add --help for usage)')
  // Commander's own errors read like ours ("parapush: ...") and reach reportCliError, which turns
  // them into the bad-input exit code instead of commander's generic 1. Subcommands inherit both.
  .configureOutput({ outputError: (str, write) => write(str.replace(/^error: /, 'parapush: ')) })
  .exitOverride();

registerCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.exitCode = reportCliError(err);
}
