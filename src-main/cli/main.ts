/**
 * The `parapush` command line. Each command lives in its own module under ./commands and adds
 * itself to the program; this file only wires them together, turns errors into exit codes and
 * ends the process once a command is done: a socket, timer or worker a command left open must not
 * keep it alive. Long-running commands (lab, web, mocap serve and listen) are done when stopped
 * (until-stopped.ts).
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

await registerCommands(program, process.argv.slice(2));

let code: number;
try {
  await program.parseAsync(process.argv);
  // A command that fails without throwing (a failed scene check, a run that did not succeed) says so here.
  code = Number(process.exitCode ?? 0);
} catch (err) {
  code = await reportCliError(err);
}
await flushed(process.stdout);
await flushed(process.stderr);
process.exit(code);

/** Resolves once everything written to the stream so far has been handed to the system. */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}
