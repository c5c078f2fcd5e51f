/**
 * The Electron main process: one console window with the security checklist applied, and the
 * console core behind it. This is one of the two files that import 'electron'; everything it
 * wires together is plain Node and tested without Electron.
 */
import { app, BrowserWindow, ipcMain, MessageChannelMain, protocol, session } from 'electron';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConsoleChannel, streamEventTypes } from '#contract/console-api';
import type { ConsoleCore } from '../console/console-core';
import { createConsole } from '../console/create-console';
import { loadLabSettings } from '../common/config-files';
import { virtualLabSettings } from '#contract/lab-settings';
import { wallSeconds } from '#contract/time';
import { utilityWorkerSpawner } from './utility-transport';
import { consoleWindowOptions, isConsolePage, windowContentSecurityPolicy } from '../console/window-options';
import {
  FOXGLOVE_ORIGINS_ENV,
  FOXGLOVE_PORT_ENV,
  foxgloveOrigins,
  foxglovePort,
  liveViewNotice,
} from '../session/foxglove-live';
import { FoxgloveSwitch } from '../console/foxglove-switch';
import { CONSOLE_SCHEME, consolePage, consoleSchemePrivileges, serveConsoleRequest } from './renderer-source';

const here = path.dirname(fileURLToPath(import.meta.url));
const rendererDir = path.join(here, '../renderer');
/** The built renderer over parapush://, or (electron-vite dev, unpackaged) Vite with hot reload. */
const page = consolePage({ isPackaged: app.isPackaged, rendererUrl: process.env['ELECTRON_RENDERER_URL'] });
const devServerUrl = page.devServer ? page.url : null;
// Privileged schemes must be registered before the app is ready.
protocol.registerSchemesAsPrivileged([{ scheme: CONSOLE_SCHEME, privileges: consoleSchemePrivileges }]);

function lockDownSessions(): void {
  const csp = windowContentSecurityPolicy(devServerUrl);
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } });
  });
  // Every web contents, present and future: no navigation away, no new windows, no webviews.
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event) => event.preventDefault());
    contents.on('will-redirect', (event) => event.preventDefault());
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });
}

function openConsole(core: ConsoleCore): void {
  const win = new BrowserWindow(consoleWindowOptions(path.join(here, '../preload/index.cjs')));
  const contents = win.webContents;
  let unsubscribe: (() => void) | null = null;

  // High-rate events (live state, planner steps) go over a MessagePort, the rest over IPC.
  // A fresh port per page load: a reload gets a new port and the old one is closed.
  contents.on('did-finish-load', () => {
    unsubscribe?.();
    const { port1, port2 } = new MessageChannelMain();
    contents.postMessage(ConsoleChannel.stream, null, [port2]);
    port1.start();
    const stop = core.subscribe((event) => {
      if (contents.isDestroyed()) return;
      if (streamEventTypes.has(event.type)) port1.postMessage(event);
      else contents.send(ConsoleChannel.event, event);
    });
    unsubscribe = () => {
      stop();
      port1.close();
    };
  });
  win.on('closed', () => unsubscribe?.());
  win.once('ready-to-show', () => win.show());

  void win.loadURL(page.url);
}

async function main(): Promise<void> {
  await app.whenReady();
  protocol.handle(CONSOLE_SCHEME, (request) => serveConsoleRequest(request, rendererDir));
  lockDownSessions();
  // The in-process virtual lab for dry runs; a real lab when <userData>/lab.json names one.
  const pending: string[] = [];
  let core: ConsoleCore | null = null;
  const report = (message: string): void => {
    if (!core) pending.push(message);
    else core.publish({ type: 'log', at: wallSeconds(), level: 'info', source: 'lab', message });
  };
  const labFile = path.join(app.getPath('userData'), 'lab.json');
  let labSettings = virtualLabSettings;
  try {
    labSettings = loadLabSettings(existsSync(labFile) ? labFile : null);
  } catch (err) {
    report(`real runs are off: ${(err as Error).message}`);
  }
  if (page.ignored) report(page.ignored);
  const foxglove = await liveView(report);
  const { core: created, close } = createConsole({
    lab: labSettings,
    spawn: utilityWorkerSpawner(here),
    settingsFile: path.join(app.getPath('userData'), 'planner-settings.json'),
    foxglove,
    report,
  });
  core = created;
  ipcMain.handle(ConsoleChannel.command, async (event, raw: unknown) => {
    const frameUrl = event.senderFrame?.url ?? '';
    if (!isConsolePage(frameUrl, page.url) || event.senderFrame?.parent) {
      return { ok: false, error: 'command refused: it did not come from the console page' };
    }
    return created.handle(raw);
  });
  for (const line of pending.splice(0)) report(line);
  openConsole(created);
  app.on('window-all-closed', () => {
    void close().finally(() => app.quit());
  });
}

/**
 * The live Foxglove view of each run, a console setting (Setup view), on at launch when
 * $PARAPUSH_FOXGLOVE_PORT asks for it (a port, or "on" for 8765), open to the browser apps of
 * $PARAPUSH_FOXGLOVE_ORIGINS (comma-separated) besides the desktop apps; a bad value or a port in
 * use is reported in the event log and the console starts with the view off (and no browser app
 * allowed, for a bad origin).
 */
async function liveView(report: (message: string) => void): Promise<FoxgloveSwitch> {
  let origins: string[];
  try {
    origins = foxgloveOrigins([process.env[FOXGLOVE_ORIGINS_ENV] ?? '']);
  } catch (err) {
    report(`no Foxglove live view ($${FOXGLOVE_ORIGINS_ENV}): ${(err as Error).message}`);
    return new FoxgloveSwitch();
  }
  const foxglove = new FoxgloveSwitch({ origins });
  try {
    const port = foxglovePort(process.env[FOXGLOVE_PORT_ENV]);
    if (port === null) return foxglove;
    const { url } = await foxglove.set(port);
    report(liveViewNotice(url!));
  } catch (err) {
    report(`no Foxglove live view ($${FOXGLOVE_PORT_ENV}): ${(err as Error).message}`);
  }
  return foxglove;
}

void main();
