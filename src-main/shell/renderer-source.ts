/**
 * Which page the console window loads, and how the shell's parapush:// scheme serves the built
 * renderer. Plain Node (no 'electron' import) so Vitest checks these rules; main.ts applies them.
 * Whatever page the window loads gets the full bridge (the arm, real runs): it must be the
 * shipped renderer, or while developing a Vite dev server on this machine.
 */
import { readFile } from 'node:fs/promises';
import { windowContentSecurityPolicy } from '../console/window-options';
import { rendererFile } from '../console/web-files';

export const CONSOLE_SCHEME = 'parapush';
const CONSOLE_HOST = 'console';
export const CONSOLE_APP_URL = `${CONSOLE_SCHEME}://${CONSOLE_HOST}/index.html`;

/**
 * For protocol.registerSchemesAsPrivileged. standard: relative URLs resolve and the page has an
 * origin of its own (file:// pages share one null origin); secure: a secure context, like https;
 * supportFetchAPI: the page may fetch its own files. Deliberately not corsEnabled (other origins
 * could read it) nor bypassCSP.
 */
export const consoleSchemePrivileges = { standard: true, secure: true, supportFetchAPI: true } as const;

export interface ConsolePage {
  url: string;
  /** The Vite dev server while developing (its CSP allows injected styles and its WebSocket). */
  devServer: boolean;
  /** Why ELECTRON_RENDERER_URL was set but not used, for the event log. */
  ignored: string | null;
}

/**
 * The URL the console window loads. ELECTRON_RENDERER_URL (set by electron-vite dev) is honoured
 * only in an unpackaged app and only for http on loopback: an environment variable must not be
 * able to hand the bridge to a page from elsewhere.
 */
export function consolePage(env: { isPackaged: boolean; rendererUrl: string | undefined }): ConsolePage {
  const app = (ignored: string | null): ConsolePage => ({ url: CONSOLE_APP_URL, devServer: false, ignored });
  const raw = env.rendererUrl;
  if (raw === undefined || raw === '') return app(null);
  if (env.isPackaged) return app('ELECTRON_RENDERER_URL is ignored: this is a packaged app');
  const dev = loopbackHttpUrl(raw);
  if (dev === null)
    return app(`ELECTRON_RENDERER_URL ${JSON.stringify(raw)} is ignored: only http on loopback is allowed`);
  return { url: dev, devServer: true, ignored: null };
}

/** Hostnames Chromium always resolves to this machine (it never asks DNS for localhost). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

function loopbackHttpUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  const plain = url.username === '' && url.password === '';
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname) && plain ? url.href : null;
}

/**
 * Answers one parapush:// request from the built renderer folder (an absolute path), with the
 * same CSP the window enforces. The path lookup is web mode's: nothing outside the folder.
 */
export async function serveConsoleRequest(request: Request, rendererDir: string): Promise<Response> {
  const url = new URL(request.url);
  if (url.host !== CONSOLE_HOST) return plain(404, 'not found');
  if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'method not allowed');
  const found = rendererFile(rendererDir, url.pathname);
  if (found.kind === 'bad-request') return plain(400, found.reason);
  if (found.kind === 'not-found') return plain(404, 'not found');
  let body: Buffer;
  try {
    body = await readFile(found.file);
  } catch {
    // Gone or unreadable since the lookup.
    return plain(404, 'not found');
  }
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
    headers: {
      'Content-Type': found.contentType,
      'Content-Security-Policy': windowContentSecurityPolicy(null),
      'X-Content-Type-Options': 'nosniff',
    },
  });
}

function plain(status: number, message: string): Response {
  return new Response(`${message}\n`, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
}
