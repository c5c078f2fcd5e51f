/** `parapush web` refuses bad lab settings and worker counts before it starts anything. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLabSettings } from '../../src-main/common/config-files';

function web(...args: string[]) {
  return spawnSync(process.execPath, ['bin/parapush.mjs', 'web', '--port', '0', ...args], {
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe('parapush web: lab settings', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'parapush-web-'));

  it('names the field of an invalid lab settings file', () => {
    const file = path.join(dir, 'lab.json');
    writeFileSync(file, JSON.stringify({ kind: 'real', robotHost: '10.0.0.2' }));
    const r = web('--lab', file);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('invalid lab settings');
    expect(r.stderr).toContain('mocapHost');
  });

  it('refuses a worker count that is not a whole number', () => {
    const r = web('--workers', 'two');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--workers must be a whole number');
  });

  it('reads a real lab, and defaults to the virtual lab without a file', () => {
    const file = path.join(dir, 'real.json');
    writeFileSync(file, JSON.stringify({ kind: 'real', robotHost: '127.0.0.1', mocapHost: '127.0.0.1' }));
    expect(loadLabSettings(file)).toEqual({ kind: 'real', robotHost: '127.0.0.1', mocapHost: '127.0.0.1' });
    expect(loadLabSettings(null)).toEqual({ kind: 'virtual', multicast: false });
  });
});
