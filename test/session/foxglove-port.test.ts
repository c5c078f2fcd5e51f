/**
 * Turning the live Foxglove view on: `--foxglove [PORT]` on `parapush run` and `parapush web`, and
 * $PARAPUSH_FOXGLOVE_PORT for the desktop console. Off unless asked; the flag alone is port 8765.
 * `--foxglove-origin` ($PARAPUSH_FOXGLOVE_ORIGINS) takes web origins only, never "null".
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FOXGLOVE_PORT, foxgloveOrigins, foxglovePort } from '../../src-main/session/foxglove-live';
import { cli, cliRunIsrr } from '../helpers/cli';
import { repoRoot } from '../helpers/scenes';

describe('the live view port', () => {
  it('is off unless asked; the flag alone or "on" is 8765; 0 picks a free port', () => {
    expect(foxglovePort(undefined)).toBeNull();
    expect(DEFAULT_FOXGLOVE_PORT).toBe(8765);
    expect(foxglovePort(true)).toBe(8765);
    expect(foxglovePort('on')).toBe(8765);
    expect(foxglovePort('9000')).toBe(9000);
    expect(foxglovePort('0')).toBe(0);
  });

  it.each(['ws', '-1', '70000', '80.5', '8765x'])('refuses %s, saying what it got', (v) => {
    expect(() => foxglovePort(v)).toThrow(`got "${v}"`);
  });

  it('takes web origins, one by one or as a comma list', () => {
    expect(
      foxgloveOrigins(['https://app.foxglove.dev', 'http://localhost:8080, http://127.0.0.1:3000']),
    ).toEqual(['https://app.foxglove.dev', 'http://localhost:8080', 'http://127.0.0.1:3000']);
    expect(foxgloveOrigins([''])).toEqual([]);
  });

  it.each([
    'null',
    '*',
    'app.foxglove.dev',
    'https://app.foxglove.dev/',
    'https://app.foxglove.dev/view',
    'HTTPS://APP.foxglove.dev',
  ])('refuses the origin %s, saying what it got', (v) =>
    expect(() => foxgloveOrigins([v])).toThrow(`got "${v}"`),
  );

  it('parapush log serve refuses a bad --foxglove-origin with exit code 2', async () => {
    const r = await cli('log', 'serve', path.join(repoRoot, 'package.json'), '--foxglove-origin', 'null');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^parapush: --foxglove-origin: expected an origin such as https:\/\/app\.foxglove\.dev .*got "null"\n$/,
    );
  });

  it('parapush run refuses a bad --foxglove before anything connects, with exit code 2', async () => {
    const r = await cliRunIsrr('--foxglove', 'ws');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'parapush: --foxglove: expected a port number 0..65535 (or nothing, for 8765), got "ws"\n',
    );
  });

  it('parapush web and parapush log serve refuse a bad --foxglove the same way', async () => {
    const web = await cli('web', '--foxglove', '70000');
    expect(web.code).toBe(2);
    expect(web.stderr).toBe(
      'parapush: --foxglove: expected a port number 0..65535 (or nothing, for 8765), got "70000"\n',
    );
    const log = path.join(repoRoot, 'package.json');
    const serve = await cli('log', 'serve', log, '--foxglove', 'x');
    expect(serve.code).toBe(2);
    expect(serve.stderr).toMatch(/^parapush: --foxglove: expected a port number/);
  });

  it('is in the help of parapush run', async () => {
    const r = await cli('run', '--help');
    expect(r.stdout).toMatch(/--foxglove \[port\]/);
  });
});
