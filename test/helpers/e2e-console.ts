/**
 * The console as the end-to-end tests drive it: web mode on the real core with the in-process
 * virtual lab (virtual UR, gripper and NatNet server on loopback), wired as `parapush web` wires
 * them, opened in Debian's Chromium. Runs are recorded as in `parapush web`, but into the test's
 * temp folder (PARAPUSH_SESSIONS_DIR), never the home folder; scenes saved go there too.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import type { LabSettings } from '#contract/lab-settings';
import type { ConsoleCore } from '../../src-main/console/console-core';
import type { ConsoleLab } from '../../src-main/console/console-lab';
import { createConsole } from '../../src-main/console/create-console';
import { loopbackLabAddress } from '../../src-main/lab-link/lab-link';
import { ensureRendererBuilt } from '../../src-main/console/renderer-build';
import { startWebServer, type WebServer } from '../../src-main/console/web-server';
import { defaultSessionsDir, SESSIONS_DIR_ENV } from '../../src-main/session/sessions-dir';
import { chromiumOptions, docScreenshotsDir, screenshotsDir, updateDocs } from './chromium';

export interface ConsoleInChromium {
  /** The test's temp folder: sessions, the renderer build, the browser profile. */
  root: string;
  server: WebServer;
  lab: ConsoleLab;
  core: ConsoleCore;
  context: BrowserContext;
  page: Page;
  /** Closes the browser, the server, the core and the lab; removes the temp folder. */
  close(): Promise<void>;
}

/** What the console is started on: the in-process virtual lab and the shipped scenes unless given. */
export interface E2eConsoleOptions {
  /** The lab settings (`--lab FILE`'s content); default: the virtual lab. */
  lab?: LabSettings;
  /** The scene library and the scene the console opens on. */
  scenesDir?: string;
  sceneFile?: string;
}

/** Starts the console in web mode and opens a Chromium page on a window of `viewport` (not yet on the console's URL). */
export async function openConsoleInChromium(
  viewport: {
    width: number;
    height: number;
  },
  o: E2eConsoleOptions = {},
): Promise<ConsoleInChromium> {
  const root = mkdtempSync(path.join(tmpdir(), 'parapush-e2e-'));
  const sessionsDirBefore = process.env[SESSIONS_DIR_ENV];
  process.env[SESSIONS_DIR_ENV] = path.join(root, 'sessions');
  mkdirSync(screenshotsDir, { recursive: true });
  mkdirSync(docScreenshotsDir, { recursive: true });
  const rendererDir = path.join(root, 'renderer');
  await ensureRendererBuilt(rendererDir, () => {});
  const { core, lab, close } = createConsole({
    lab: o.lab ?? { kind: 'virtual', multicast: false },
    scenesDir: o.scenesDir ?? path.resolve('resources/scenes'),
    userScenesDir: path.join(root, 'scenes'),
    ...(o.sceneFile ? { sceneFile: o.sceneFile } : {}),
    tasksDir: path.resolve('resources/tasks'),
    workers: 1,
    sessionsDir: defaultSessionsDir(),
    report: () => {},
  });
  const server = await startWebServer({ core, rendererDir, port: 0 });
  const context = await chromium.launchPersistentContext(path.join(root, 'profile'), {
    ...chromiumOptions,
    viewport,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    root,
    server,
    lab,
    core,
    context,
    page,
    async close() {
      await context.close();
      await server.close();
      await close();
      rmSync(root, { recursive: true, force: true });
      if (sessionsDirBefore === undefined) delete process.env[SESSIONS_DIR_ENV];
      else process.env[SESSIONS_DIR_ENV] = sessionsDirBefore;
    },
  };
}

type LoopbackPorts = Parameters<typeof loopbackLabAddress>[0];

/** The lab file of a real lab whose devices listen on 127.0.0.1 at `ports` (a virtual lab standing in for one). */
export function loopbackRealLab(ports: LoopbackPorts): LabSettings {
  const { robotHost, mocapHost, ports: p } = loopbackLabAddress(ports);
  return { kind: 'real', robotHost, mocapHost, ports: p };
}

/**
 * The console configured with that lab file (`--lab`) on the lab-short test scene, at 1280 x 800,
 * its page open on the console.
 */
export async function openConsoleOnLoopbackLab(ports: LoopbackPorts): Promise<ConsoleInChromium> {
  const e2e = await openConsoleInChromium(
    { width: 1280, height: 800 },
    {
      lab: loopbackRealLab(ports),
      scenesDir: path.resolve('test/fixtures'),
      sceneFile: 'lab-short-scene.json',
    },
  );
  await e2e.page.goto(e2e.server.url);
  return e2e;
}

/** A console on a lab file's lab, in a temp folder of the test's own. */
export interface ConsoleOnLab<L> {
  /** The temp folder: the lab's files, and the user's setup folder (it or one in it). */
  dir: string;
  lab: L;
  e2e: ConsoleInChromium;
  /** Closes the console, stops the lab, points the setup folder back and removes `dir`. */
  close(): Promise<void>;
}

/**
 * A lab file's console as the tests of a first day start it: a temp folder `dir` (its name from
 * `prefix`), the user's setup folder at `setupDir(dir)` (default `dir`), the lab `startLab(dir)`
 * and the console on its ports (openConsoleOnLoopbackLab). What started before a failure is closed.
 */
export async function openConsoleOnLab<L extends { ports: LoopbackPorts; stop(): Promise<void> }>(o: {
  prefix: string;
  setupDir?: (dir: string) => string;
  startLab: (dir: string) => Promise<L>;
}): Promise<ConsoleOnLab<L>> {
  const dir = mkdtempSync(path.join(tmpdir(), o.prefix));
  const restoreSetupDir = useSetupDir(o.setupDir ? o.setupDir(dir) : dir);
  let lab: L | undefined;
  let e2e: ConsoleInChromium | undefined;
  const close = async (): Promise<void> => {
    await e2e?.close();
    await lab?.stop();
    restoreSetupDir();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    lab = await o.startLab(dir);
    e2e = await openConsoleOnLoopbackLab(lab.ports);
    return { dir, lab, e2e, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** A screenshot of a step: into docs/screenshots with PARAPUSH_UPDATE_DOCS=1, else test-artifacts/screenshots. */
export function docShot(page: Page, name: string): Promise<Buffer> {
  return page.screenshot({ path: path.join(updateDocs ? docScreenshotsDir : screenshotsDir, name) });
}

/**
 * Captures the calibration wizard's current stage at table point `p` (m, typed in mm) until the
 * pair is in: a capture refused for a stale frame on a loaded machine is taken again.
 */
export async function capturePair(wizard: Locator, p: readonly [number, number]): Promise<void> {
  const rows = wizard.getByRole('table', { name: 'Calibration pairs' }).locator('tbody tr[data-worst]');
  const capture = wizard.getByRole('button', { name: /Capture point|Capturing/ });
  await wizard.getByLabel('Table point x (mm)').fill((p[0] * 1000).toFixed(1));
  await wizard.getByLabel('Table point y (mm)').fill((p[1] * 1000).toFixed(1));
  const n = await rows.count();
  await expect
    .poll(
      async () => {
        if ((await rows.count()) === n + 1) return true;
        if (await capture.isEnabled()) await capture.click();
        return false;
      },
      { timeout: 30_000, interval: 700 },
    )
    .toBe(true);
}

const SETUP_DIR_ENV = 'PARAPUSH_SETUP_DIR';

/** Points the user's setup folder at `dir` (a first day's, or a test's own); returns the undo. */
export function useSetupDir(dir: string): () => void {
  const before = process.env[SETUP_DIR_ENV];
  process.env[SETUP_DIR_ENV] = dir;
  return () => {
    if (before === undefined) delete process.env[SETUP_DIR_ENV];
    else process.env[SETUP_DIR_ENV] = before;
  };
}

/**
 * The pusher where it stands, once two looks 500 ms apart agree within 0.1 mm (a virtual pusher
 * trails the tool and settles after it); `pusherNow` reads it, null while unknown.
 */
export async function pusherAtRest(
  page: Page,
  pusherNow: () => [number, number] | null,
): Promise<[number, number]> {
  let last: [number, number] | null = null;
  await expect
    .poll(
      async () => {
        const before = pusherNow();
        await page.waitForTimeout(500);
        last = pusherNow();
        return !!before && !!last && Math.hypot(last[0] - before[0], last[1] - before[1]) < 0.0001;
      },
      { timeout: 20_000, interval: 100 },
    )
    .toBe(true);
  return last!;
}
