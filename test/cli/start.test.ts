/**
 * `npm start` in web mode (as where Electron cannot run): it serves the console on 127.0.0.1,
 * prints the URL with its token, and hands the default browser a private file that redirects to
 * it. The "browser" here is a script named by $BROWSER (which the opener honours without a desktop
 * session) that records what it was given.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/scenes';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

/** Resolves with the first match of `pattern` in the growing text, or rejects after `ms`. */
function waitFor(read: () => string, pattern: RegExp, ms: number): Promise<RegExpMatchArray> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const poll = (): void => {
      const m = read().match(pattern);
      if (m) return resolve(m);
      if (Date.now() - started > ms) return reject(new Error(`no ${pattern} within ${ms} ms in:\n${read()}`));
      setTimeout(poll, 100);
    };
    poll();
  });
}

describe('npm start in web mode', () => {
  it('serves the console, prints its URL and opens it in the default browser', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-start-'));
    const opened = path.join(dir, 'opened.txt');
    const browser = path.join(dir, 'browser.sh');
    writeFileSync(browser, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
    chmodSync(browser, 0o755);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      BROWSER: browser,
      PARAPUSH_SESSIONS_DIR: path.join(dir, 'sessions'),
    };
    delete env.DISPLAY;
    delete env.WAYLAND_DISPLAY;
    delete env.XDG_CURRENT_DESKTOP;
    const child = spawn(process.execPath, ['scripts/start.mjs', '--web', '--port', '0'], {
      cwd: repoRoot,
      env,
      // Its own process group, so that stopping it stops the web server it starts too.
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    cleanup = () => {
      process.kill(-child.pid!, 'SIGINT');
      rmSync(dir, { recursive: true, force: true });
    };
    // Building the UI the first time takes a while on a two-core machine.
    const [url] = await waitFor(() => out, /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/, 120_000);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<title>[^<]*Parapush/);
    await waitFor(() => (existsSync(opened) ? readFileSync(opened, 'utf8') : ''), /./, 10_000);
    // The browser is given a private file that redirects to the URL: the token is on no command line.
    const given = readFileSync(opened, 'utf8');
    expect(given).not.toContain('token');
    expect(statSync(given).mode & 0o777).toBe(0o600);
    expect(readFileSync(given, 'utf8')).toContain(`url=${url}"`);
  }, 180_000);
});
