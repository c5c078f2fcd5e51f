/**
 * `parapush web [--port P]`: the console in a browser. Runs the same core as the desktop app,
 * serves the built UI and the console API on 127.0.0.1 only, behind a token printed at launch.
 */
import type { Command } from 'commander';
import { defaultSessionsDir } from '../../session/sessions-dir';
import { ConsoleCore } from '../../console/console-core';
import { rendererOutDir, scenesDir } from '../../console/paths';
import { ensureRendererBuilt } from '../../console/renderer-build';
import { startWebServer } from '../../console/web-server';
import { UsageError } from '../errors';

export function registerWebCommand(program: Command): void {
  program
    .command('web')
    .description('serve the console UI to a browser on 127.0.0.1, behind a per-launch token')
    .option('-p, --port <port>', 'TCP port on 127.0.0.1 (0 picks a free one)', '8321')
    .option('--scenes <dir>', 'scene library folder', scenesDir)
    .option('--settings <file>', 'where planner settings persist (default: in memory only)')
    .action(async (opts: { port: string; scenes: string; settings?: string }) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new UsageError(`--port must be 0..65535, not "${opts.port}"`);
      await ensureRendererBuilt(rendererOutDir, (line) => process.stdout.write(`${line}\n`));
      // Seam for the lead: the in-process virtual lab, the run controller (MPC loop + supervisor)
      // and the connection source plug in here, exactly as in the Electron shell.
      const core = new ConsoleCore({
        scenesDir: opts.scenes,
        settingsFile: opts.settings ?? null,
        sessionsDir: defaultSessionsDir(),
      });
      let server;
      try {
        server = await startWebServer({ core, rendererDir: rendererOutDir, port });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
          throw new UsageError(`port ${port} on 127.0.0.1 is in use: pass --port with another port (or 0)`);
        }
        throw err;
      }
      process.stdout.write(
        `Parapush console (web mode) on 127.0.0.1 only. Open:\n  ${server.url}\nCtrl+C stops it.\n`,
      );
      const stop = () => {
        void server.close().then(() => {
          core.dispose();
          process.exit(0);
        });
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
