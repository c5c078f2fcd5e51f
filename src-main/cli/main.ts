/**
 * The `parapush` command line. Each command lives in its own module under ./commands and adds
 * itself to the program; this file only wires them together and turns errors into exit codes.
 */
import { Command } from 'commander';
import { registerCommands } from './commands';
import { reportCliError } from './errors';

const program = new Command();
program
  .name('parapush')
  .description('Parareal-accelerated, safety-supervised pushing with a UR5: physics, planning, lab, console')
  .showHelpAfterError()
  .configureOutput({ outputError: (str, write) => write(str) });

registerCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.exitCode = reportCliError(err);
}
