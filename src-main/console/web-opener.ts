/**
 * How `parapush web --open` hands the tokenised URL to a browser without putting it on a command
 * line, where every local user can read it (`ps`, /proc/PID/cmdline). The URL goes into a small
 * HTML file that only this user can read (0600, in a fresh 0700 folder); the browser is started
 * on that file's path, and the file sends it on to the URL.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface BrowserOpener {
  /** The file to start the browser on: its path carries no secret. */
  file: string;
  /** file:// URL of the same file. */
  url: string;
  /** Removes the file and its folder. */
  remove(): Promise<void>;
}

/** Writes the redirecting page for `target` (an http URL holding the token). */
export async function writeBrowserOpener(target: string): Promise<BrowserOpener> {
  const parsed = new URL(target);
  if (parsed.protocol !== 'http:') throw new Error(`web mode opens http URLs only, not ${parsed.protocol}`);
  // mkdtemp makes the folder 0700; the file is created new (never an existing one) and 0600.
  const dir = await mkdtemp(path.join(tmpdir(), 'parapush-open-'));
  const file = path.join(dir, 'console.html');
  await writeFile(file, redirectPage(parsed.href), { mode: 0o600, flag: 'wx' });
  return { file, url: pathToFileURL(file).href, remove: () => rm(dir, { recursive: true, force: true }) };
}

function redirectPage(href: string): string {
  const attr = escapeAttribute(href);
  return [
    '<!doctype html>',
    '<meta charset="utf-8">',
    '<meta name="referrer" content="no-referrer">',
    `<meta http-equiv="refresh" content="0; url=${attr}">`,
    '<title>Parapush console</title>',
    `<p>Opening the console… If nothing happens, <a href="${attr}">open it here</a>.</p>`,
    '',
  ].join('\n');
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
