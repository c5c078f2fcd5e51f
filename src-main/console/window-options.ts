/**
 * The console window's options and the rules the shell enforces on it, in a plain module (no
 * 'electron' import) so a Vitest test can read and check them. The shell passes these to
 * BrowserWindow unchanged.
 */
import { contentSecurityPolicy } from '#contract/content-security-policy';

/** The Electron security checklist, as webPreferences. */
export const secureWebPreferences = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  experimentalFeatures: false,
  webviewTag: false,
  navigateOnDragDrop: false,
  safeDialogs: true,
  spellcheck: false,
} as const;

export function consoleWindowOptions(preloadPath: string) {
  return {
    width: 1600,
    height: 1000,
    minWidth: 1200,
    minHeight: 760,
    title: 'Parapush console',
    backgroundColor: '#15181d',
    show: false,
    autoHideMenuBar: true,
    webPreferences: { ...secureWebPreferences, preload: preloadPath },
  };
}

/** The CSP the shell adds to every response (dev server included) and the built page carries. */
export function windowContentSecurityPolicy(devServerUrl: string | null): string {
  if (!devServerUrl) return contentSecurityPolicy();
  const dev = new URL(devServerUrl);
  return contentSecurityPolicy({ dev: true, connect: [`ws://${dev.host}`] });
}

/**
 * Whether an IPC message comes from the console page itself: same scheme and host as the URL
 * the window was loaded with (parapush://console in production, the Vite dev server while
 * developing). Compared by scheme and host rather than by origin because Node gives every
 * non-http scheme the opaque origin 'null'. Pages without a host (file:, data:, about:) never
 * match. Anything else (another frame, a navigated page) is dropped.
 */
export function isConsolePage(frameUrl: string, consoleUrl: string): boolean {
  let frame: URL;
  let expected: URL;
  try {
    frame = new URL(frameUrl);
    expected = new URL(consoleUrl);
  } catch {
    return false;
  }
  return expected.host !== '' && frame.protocol === expected.protocol && frame.host === expected.host;
}
