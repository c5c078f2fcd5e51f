import { describe, expect, it } from 'vitest';
import {
  consoleWindowOptions,
  isConsolePage,
  windowContentSecurityPolicy,
} from '../../src-main/console/window-options';

describe('console window options', () => {
  const options = consoleWindowOptions('/app/out/preload/index.cjs');

  it('applies the Electron security checklist', () => {
    expect(options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      preload: '/app/out/preload/index.cjs',
    });
  });

  it('uses a strict content security policy without unsafe-eval or inline scripts', () => {
    for (const csp of [
      windowContentSecurityPolicy(null),
      windowContentSecurityPolicy('http://localhost:5173/'),
    ]) {
      expect(csp).not.toContain('unsafe-eval');
      expect(csp).toMatch(/script-src 'self'(;|$)/);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("object-src 'none'");
    }
    expect(windowContentSecurityPolicy(null)).not.toContain('unsafe-inline');
  });

  it('accepts IPC only from the console page itself', () => {
    const app = 'parapush://console/index.html';
    expect(isConsolePage('parapush://console/index.html#x', app)).toBe(true);
    expect(isConsolePage('parapush://console/assets/other.html', app)).toBe(true);
    expect(isConsolePage('parapush://elsewhere/index.html', app)).toBe(false);
    expect(isConsolePage('file:///app/out/renderer/index.html', app)).toBe(false);
    expect(isConsolePage('https://example.org/', app)).toBe(false);
    expect(isConsolePage('http://localhost:5173/index.html', 'http://localhost:5173/')).toBe(true);
    expect(isConsolePage('http://localhost:5174/', 'http://localhost:5173/')).toBe(false);
    expect(isConsolePage('not a url', app)).toBe(false);
  });

  it('never takes a page without a host for the console (file: pages share one origin)', () => {
    const file = 'file:///app/out/renderer/index.html';
    expect(isConsolePage(file, file)).toBe(false);
    expect(isConsolePage('file:///etc/evil.html', file)).toBe(false);
    expect(isConsolePage('data:text/html,hi', 'data:text/html,hi')).toBe(false);
  });
});
