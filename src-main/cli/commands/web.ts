/**
 * `parapush web [--port P]`: the console in a browser. Runs the same core as the desktop app,
 * serves the built UI and the console API on 127.0.0.1 only, behind a token printed at launch.
 * Dry runs go to the in-process virtual lab (started at launch); real runs to the lab named by
 * --lab, if any. --open also opens the URL in the default browser, where there is one, through a
 * private file that redirects to it (web-opener.ts): the token never goes on a command line.
 */
import open from 'open';
import type { Command } from 'commander';
import { loadLabSettings } from '../../common/config-files';
import { createConsole } from '../../console/create-console';
import { rendererOutDir, scenesDir } from '../../common/paths';
import { ensureRendererBuilt } from '../../console/renderer-build';
import { writeBrowserOpener, type BrowserOpener } from '../../console/web-opener';
import { startWebServer } from '../../console/web-server';
import { UsageError } from '../errors';
import { FoxgloveSwitch } from '../../console/foxglove-switch';
import { foxgloveOriginOption, liveViewOptions, type LiveViewFlags } from '../live-view-options';
import { liveViewNotice } from '../../session/foxglove-live';
import { untilStopped } from '../until-stopped';

export function registerWebCommand(program: Command): void {
  program
    .command('web')
    .description('serve the console UI to a browser on 127.0.0.1, behind a per-launch token')
    .option('-p, --port <port>', 'TCP port on 127.0.0.1 (0 picks a free one)', '8321')
    .option(
      '--scenes <dir>',
      'folder of shipped scenes, read only (saves go to ~/.parapush/scenes, or $PARAPUSH_SCENES_DIR)',
      scenesDir,
    )
    .option('--settings <file>', 'where planner settings persist (default: in memory only)')
    .option('--lab <file>', 'lab settings (JSON) of a real lab; default: the in-process virtual lab only')
    .option('--workers <W>', 'fine-model worker processes per run (default: one per core)')
    .option('--open', 'also open the URL in the default browser')
    .option(
      '--foxglove [port]',
      'also serve each run live to Foxglove/Lichtblick on ws://127.0.0.1:PORT/?token=... (default 8765)',
    )
    .addOption(foxgloveOriginOption())
    .action(
      async (
        opts: LiveViewFlags & {
          port: string;
          scenes: string;
          settings?: string;
          lab?: string;
          workers?: string;
          open?: boolean;
        },
      ) => {
        const port = Number(opts.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw new UsageError(`--port must be 0..65535, not "${opts.port}"`);
        const workers = opts.workers === undefined ? undefined : Number(opts.workers);
        if (workers !== undefined && (!Number.isInteger(workers) || workers < 1))
          throw new UsageError(`--workers must be a whole number of 1 or more, not "${opts.workers}"`);
        const liveView = liveViewOptions(opts);
        let labSettings;
        try {
          labSettings = loadLabSettings(opts.lab ?? null);
        } catch (err) {
          throw new UsageError((err as Error).message);
        }
        await ensureRendererBuilt(rendererOutDir, (line) => process.stdout.write(`${line}\n`));
        // The live view is a console setting: --foxglove turns it on at launch, Setup on or off later.
        const foxglove = new FoxgloveSwitch({ origins: liveView.origins });
        if (liveView.port !== null) {
          try {
            await foxglove.set(liveView.port);
          } catch (err) {
            throw new UsageError(`--foxglove: ${(err as Error).message}`);
          }
        }
        const { core, close } = createConsole({
          lab: labSettings,
          scenesDir: opts.scenes,
          settingsFile: opts.settings ?? null,
          ...(workers !== undefined ? { workers } : {}),
          foxglove,
          report: (line) => process.stdout.write(`${line}\n`),
        });
        let server;
        try {
          server = await startWebServer({ core, rendererDir: rendererOutDir, port });
        } catch (err) {
          await close();
          if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
            throw new UsageError(`port ${port} on 127.0.0.1 is in use: pass --port with another port (or 0)`);
          }
          throw err;
        }
        process.stdout.write(
          `Parapush console (web mode) on 127.0.0.1 only. Open:\n  ${server.url}\nCtrl+C stops it.\n`,
        );
        const live = foxglove.status().url;
        if (live) process.stdout.write(`${liveViewNotice(live)}\n`);
        let opener: BrowserOpener | undefined;
        if (opts.open) {
          opener = await writeBrowserOpener(server.url);
          openInBrowser(opener.file);
        }
        await untilStopped().done;
        try {
          await opener?.remove();
          await server.close();
        } finally {
          await close();
        }
      },
    );
}

/**
 * Opens the redirecting file in the default browser; where there is none, the printed URL is the
 * way in. Only the file's path, no secret, is on the browser's command line.
 */
function openInBrowser(file: string): void {
  const unavailable = (err: unknown) =>
    process.stdout.write(
      `(no default browser could be opened: ${(err as Error).message}; open the URL above)\n`,
    );
  open(file)
    .then((child) => child.once('error', unavailable))
    .catch(unavailable);
}
