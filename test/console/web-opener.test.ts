/**
 * `parapush web --open` starts the browser on a private file that redirects to the tokenised URL,
 * so the token is never on a command line other local users can read (issue 29, finding 9).
 */
import { readFileSync, statSync } from 'node:fs';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeBrowserOpener } from '../../src-main/console/web-opener';

const token = 'Zk3v_secret-token-0123456789abcdef';
const target = `http://127.0.0.1:8321/?token=${token}`;

describe('browser opener file', () => {
  it('holds the URL in a file only this user can read, and its path holds no secret', async () => {
    const opener = await writeBrowserOpener(target);
    try {
      expect(opener.file).not.toContain(token);
      expect(opener.url).not.toContain(token);
      expect(opener.url).toBe(`file://${opener.file}`);
      if (process.platform !== 'win32') {
        expect(statSync(opener.file).mode & 0o777).toBe(0o600);
        expect(statSync(path.dirname(opener.file)).mode & 0o777).toBe(0o700);
      }
      const page = readFileSync(opener.file, 'utf8');
      expect(page).toContain(`<meta http-equiv="refresh" content="0; url=${target}">`);
      expect(page).toContain('<meta name="referrer" content="no-referrer">');
    } finally {
      await opener.remove();
    }
    expect(existsSync(path.dirname(opener.file))).toBe(false);
  });

  it('escapes the URL into the page and opens http URLs only', async () => {
    const opener = await writeBrowserOpener('http://127.0.0.1:1/?token=a"b<c>&d');
    try {
      const page = readFileSync(opener.file, 'utf8');
      expect(page).not.toMatch(/a"b|<c>/);
      expect(page).toContain('url=http://127.0.0.1:1/?token=a%22b%3Cc%3E&amp;d');
    } finally {
      await opener.remove();
    }
    await expect(writeBrowserOpener('javascript:alert(1)')).rejects.toThrow('http URLs only');
  });
});
