/**
 * The Electron shell in a run (issue 15): main.ts itself, with a stand-in for the 'electron'
 * module (Electron cannot start where the tests run), wires the console core, the in-process
 * virtual lab and fine workers as utility processes, and carries a dry run from the console page's
 * commands to its end: commands over IPC (refused from any other page), planner steps and live
 * state over the page's MessagePort, status over IPC, the run's session log, the window locked down.
 * The stand-in's utility processes are Node children running the fine worker from source, so the
 * run plans with real MuJoCo predictions through the shell's own transport.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ConsoleChannel, type ConsoleEvent, type RunStatus } from '#contract/console-api';
import { spawnNodeWorker, type WorkerTransport } from '../../src-main/parareal/worker-transport';
import { SESSIONS_DIR_ENV } from '../../src-main/session/sessions-dir';
import { fastDryRun } from '../helpers/console-on-lab';
import { waitUntil } from '../helpers/wait-until';

const home = mkdtempSync(path.join(os.tmpdir(), 'parapush-shell-'));
const sessionsDir = path.join(home, 'sessions');
process.env[SESSIONS_DIR_ENV] = sessionsDir;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Electron's handlers take anything
type Handler = (...args: any[]) => unknown;

/** What the stand-in saw of the shell: its window, IPC handler, protocol and worker forks. */
const shell = {
  appEvents: new EventEmitter(),
  quit: vi.fn(),
  window: null as null | { options: unknown; url: string; contents: FakeWebContents; shown: boolean },
  command: null as null | Handler,
  headers: null as null | Handler,
  permissionCheck: null as null | Handler,
  forks: [] as { entry: string; options: unknown }[],
  scheme: null as null | string,
};

class FakeWebContents extends EventEmitter {
  sent: ConsoleEvent[] = [];
  streamed: ConsoleEvent[] = [];
  windowOpen: Handler | null = null;
  isDestroyed = (): boolean => false;
  send(channel: string, event: ConsoleEvent): void {
    if (channel === ConsoleChannel.event) this.sent.push(event);
  }
  /** The shell hands the page one end of a MessageChannel; the page reads the stream from it. */
  postMessage(channel: string, _message: unknown, ports: FakePort[]): void {
    expect(channel).toBe(ConsoleChannel.stream);
    ports[0]!.onPosted = (e) => this.streamed.push(e as ConsoleEvent);
  }
  setWindowOpenHandler(h: Handler): void {
    this.windowOpen = h;
  }
}

class FakePort {
  peer: FakePort | null = null;
  onPosted: ((m: unknown) => void) | null = null;
  start(): void {}
  close(): void {}
  postMessage(m: unknown): void {
    this.peer?.onPosted?.(m);
  }
}

/** A utility process: a Node child running the fine worker from source, behind Electron's API. */
class FakeUtilityProcess extends EventEmitter {
  private readonly worker: WorkerTransport = spawnNodeWorker();
  constructor() {
    super();
    this.worker.onMessage((m) => this.emit('message', m));
    this.worker.onExit((code) => this.emit('exit', code));
  }
  get pid(): number | undefined {
    return this.worker.pid;
  }
  postMessage(m: unknown): void {
    this.worker.send(m);
  }
  kill(): boolean {
    this.worker.kill();
    return true;
  }
}

vi.mock('electron', () => ({
  app: {
    isPackaged: false,
    whenReady: () => Promise.resolve(),
    getPath: () => home,
    on: (event: string, h: Handler) => shell.appEvents.on(event, h),
    quit: shell.quit,
  },
  protocol: {
    registerSchemesAsPrivileged: (schemes: { scheme: string }[]) => (shell.scheme = schemes[0]!.scheme),
    handle: () => undefined,
  },
  session: {
    defaultSession: {
      setPermissionRequestHandler: () => undefined,
      setPermissionCheckHandler: (h: Handler) => (shell.permissionCheck = h),
      webRequest: { onHeadersReceived: (h: Handler) => (shell.headers = h) },
    },
  },
  ipcMain: { handle: (_channel: string, h: Handler) => (shell.command = h) },
  MessageChannelMain: class {
    port1 = new FakePort();
    port2 = new FakePort();
    constructor() {
      this.port1.peer = this.port2;
      this.port2.peer = this.port1;
    }
  },
  BrowserWindow: class extends EventEmitter {
    readonly webContents = new FakeWebContents();
    constructor(options: unknown) {
      super();
      shell.window = { options, url: '', contents: this.webContents, shown: false };
      shell.appEvents.emit('web-contents-created', {}, this.webContents);
    }
    show(): void {
      shell.window!.shown = true;
    }
    async loadURL(url: string): Promise<void> {
      shell.window!.url = url;
      this.emit('ready-to-show');
      this.webContents.emit('did-finish-load');
    }
  },
  utilityProcess: {
    fork: (entry: string, _args: string[], options: unknown) => {
      shell.forks.push({ entry, options });
      return new FakeUtilityProcess();
    },
  },
}));

afterAll(() => rmSync(home, { recursive: true, force: true }));

/** What the page was sent so far, for a time-out's message. */
const sentSoFar = (): string =>
  JSON.stringify(shell.window?.contents.sent.map((e) => (e.type === 'log' ? e.message : e.type)));
const until = <T>(what: string, get: () => T | undefined | null | false): Promise<T> =>
  waitUntil(what, get, { timeout: 60, seen: sentSoFar });

const statuses = (): RunStatus[] =>
  shell.window!.contents.sent.flatMap((e) => (e.type === 'run' ? [e.status] : []));

describe('the Electron shell in a run', () => {
  it('runs a dry run from the console page to its end, with fine workers as utility processes', async () => {
    await import('../../src-main/shell/main');
    const command = await until('the IPC command handler', () => shell.command);
    const win = await until('the console window', () => (shell.window?.url ? shell.window : undefined));
    expect(win.url).toBe(`${shell.scheme}://console/index.html`);
    expect(win.shown).toBe(true);
    // Locked down: every response carries the CSP, permissions and new windows are refused.
    const headers = await new Promise<{ responseHeaders: Record<string, string[]> }>((resolve) =>
      (shell.headers as (d: unknown, cb: (r: never) => void) => void)({ responseHeaders: {} }, resolve),
    );
    expect(headers.responseHeaders['Content-Security-Policy']![0]).toMatch(/default-src 'none'|script-src/);
    expect((shell.permissionCheck as () => boolean)()).toBe(false);
    expect((win.contents.windowOpen as () => unknown)()).toEqual({ action: 'deny' });

    const from = (url: string) => ({ senderFrame: { url, parent: null } });
    const send = (raw: unknown, url = win.url): Promise<{ ok: boolean; error?: string }> =>
      (command as (e: unknown, r: unknown) => Promise<{ ok: boolean; error?: string }>)(from(url), raw);

    // A command from any other page is refused before it reaches the core.
    const foreign = await send({ type: 'run.start', mode: 'dry' }, 'https://example.com/');
    expect(foreign).toMatchObject({
      ok: false,
      error: expect.stringMatching(/did not come from the console page/),
    });

    expect(await send({ type: 'scene.load', file: 'isrr-obstacle.json' })).toMatchObject({ ok: true });
    const settings = { ...fastDryRun(2), predictionModel: 'fine' as const };
    expect(await send({ type: 'settings.set', settings })).toMatchObject({ ok: true });
    expect(await send({ type: 'run.start', mode: 'dry' })).toMatchObject({ ok: true });

    const ended = await until('the run to end', () =>
      statuses().find((s) => s.phase === 'finished' || s.phase === 'failed'),
    );
    // It ran its two actions: the task's end, not a safety stop or an error.
    expect(ended.reason).toMatch(/^(2 actions executed|Goal reached)$/);
    const steps = win.contents.streamed.filter((e) => e.type === 'planner-step');
    expect(steps.length).toBeGreaterThanOrEqual(2);
    expect(win.contents.streamed.some((e) => e.type === 'state')).toBe(true);
    // Stream events go over the port, never over IPC.
    expect(win.contents.sent.some((e) => e.type === 'planner-step' || e.type === 'state')).toBe(false);
    // The fine model predicted in the shell's utility processes, forked from the built entry.
    expect(shell.forks.length).toBeGreaterThan(0);
    expect(path.basename(shell.forks[0]!.entry)).toBe('fine-worker.js');
    for (const s of steps) expect(s.type === 'planner-step' && s.step.timings.workers).toBeGreaterThan(0);

    const log = await until('the session log', () => {
      const files = readdirSync(sessionsDir, { withFileTypes: true }).filter((f) =>
        f.name.endsWith('_dry.mcap'),
      );
      const locks = readdirSync(sessionsDir).filter((f) => f.endsWith('.lock'));
      return files.length === 1 && locks.length === 0 && files[0]!.name;
    });
    expect(log).toMatch(/_dry\.mcap$/);

    // Closing the window lets go of the lab and quits.
    shell.appEvents.emit('window-all-closed');
    await until('the app to quit', () => shell.quit.mock.calls.length > 0);
  }, 240_000);
});
