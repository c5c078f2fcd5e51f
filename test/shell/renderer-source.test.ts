/**
 * The page the Electron console window loads gets the full bridge (the arm, real runs). It is
 * the built renderer over parapush://, or while developing an unpackaged app a Vite dev server
 * on loopback; ELECTRON_RENDERER_URL cannot point a packaged console anywhere else. The scheme
 * serves files from the renderer folder only.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CONSOLE_APP_URL,
  consolePage,
  consoleSchemePrivileges,
  serveConsoleRequest,
} from '../../src-main/shell/renderer-source';

describe('the page the console window loads', () => {
  it('is the built renderer over parapush:// by default', () => {
    expect(CONSOLE_APP_URL).toBe('parapush://console/index.html');
    for (const rendererUrl of [undefined, '']) {
      expect(consolePage({ isPackaged: false, rendererUrl })).toEqual({
        url: CONSOLE_APP_URL,
        devServer: false,
        ignored: null,
      });
    }
  });

  it('is the Vite dev server on loopback in an unpackaged app', () => {
    for (const url of ['http://localhost:5173/', 'http://127.0.0.1:5173/', 'http://[::1]:5173/']) {
      expect(consolePage({ isPackaged: false, rendererUrl: url })).toEqual({
        url,
        devServer: true,
        ignored: null,
      });
    }
  });

  it('ignores ELECTRON_RENDERER_URL in a packaged app, even on loopback', () => {
    const page = consolePage({ isPackaged: true, rendererUrl: 'http://localhost:5173/' });
    expect(page).toMatchObject({ url: CONSOLE_APP_URL, devServer: false });
    expect(page.ignored).toContain('packaged');
  });

  it('ignores anything but http on loopback', () => {
    for (const rendererUrl of [
      'https://evil.example/',
      'http://evil.example:5173/',
      'http://192.168.1.20:5173/',
      'http://localhost.evil.example/',
      'http://user:pass@localhost:5173/',
      'https://localhost:5173/',
      'file:///tmp/evil.html',
      'javascript:alert(1)',
      'not a url',
    ]) {
      const page = consolePage({ isPackaged: false, rendererUrl });
      expect(page, rendererUrl).toMatchObject({ url: CONSOLE_APP_URL, devServer: false });
      expect(page.ignored, rendererUrl).toContain('only http on loopback');
    }
  });

  it('registers the scheme as standard and secure, never as CORS-enabled or CSP-bypassing', () => {
    expect(consoleSchemePrivileges).toMatchObject({ standard: true, secure: true });
    expect(consoleSchemePrivileges).not.toHaveProperty('corsEnabled');
    expect(consoleSchemePrivileges).not.toHaveProperty('bypassCSP');
  });
});

describe('the parapush:// scheme', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'parapush-scheme-'));
  const rendererDir = path.join(root, 'renderer');
  mkdirSync(path.join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'export {};');
  writeFileSync(path.join(root, 'secret.json'), '{"apiKey":"do-not-serve"}');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const serve = (url: string, method = 'GET') =>
    serveConsoleRequest(new Request(url, { method }), rendererDir);

  it('serves the renderer with its content type and the strict CSP', async () => {
    const page = await serve(CONSOLE_APP_URL);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('console');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe');
    const script = await serve('parapush://console/assets/app.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await serve('parapush://console/')).status).toBe(200);
  });

  it('serves nothing outside the renderer folder and nothing for another host', async () => {
    expect((await serve('parapush://console/../secret.json')).status).toBe(404);
    expect((await serve('parapush://console/%2e%2e/secret.json')).status).toBe(404);
    expect((await serve('parapush://console/..%2fsecret.json')).status).toBe(404);
    expect((await serve('parapush://console/assets')).status).toBe(404);
    expect((await serve('parapush://other/index.html')).status).toBe(404);
    expect((await serve('parapush://console/%E0%A4%A')).status).toBe(400);
    expect((await serve(CONSOLE_APP_URL, 'POST')).status).toBe(405);
  });
});
