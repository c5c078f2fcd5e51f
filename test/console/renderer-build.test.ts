import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt, rendererSourceDigest } from '../../src-main/console/renderer-build';

const outDir = path.join(mkdtempSync(path.join(tmpdir(), 'parapush-renderer-')), 'renderer');
afterAll(() => rmSync(path.dirname(outDir), { recursive: true, force: true }));

describe('renderer build (what web mode runs when out/renderer is missing or stale)', () => {
  it('builds the console UI with the strict CSP meta tag, and again only when its sources changed', async () => {
    const said: string[] = [];
    const digest = rendererSourceDigest();
    await ensureRendererBuilt(outDir, (line) => said.push(line), digest);
    expect(said[0]).toMatch(/not built yet/);
    const html = readFileSync(path.join(outDir, 'index.html'), 'utf8');
    expect(html).toContain('Content-Security-Policy');
    expect(html).not.toContain('unsafe-eval');
    expect(readdirSync(path.join(outDir, 'assets')).some((f) => f.endsWith('.js'))).toBe(true);
    // A second call on the same sources finds the build and does nothing.
    await ensureRendererBuilt(outDir, (line) => said.push(line), digest);
    expect(said).toHaveLength(2);
    // Sources that moved on since (a pull, a checkout): the old UI is rebuilt, not served.
    await ensureRendererBuilt(outDir, (line) => said.push(line), `${digest}-changed`);
    expect(said.slice(2)).toEqual([
      expect.stringMatching(/built from other sources: rebuilding/),
      'Console UI built.',
    ]);
  });

  it('digests the renderer, the contract it imports, the package manifest (its import aliases) and the lockfile, and nothing else', () => {
    const all = rendererSourceDigest();
    expect(all).toMatch(/^[0-9a-f]{64}$/);
    expect(rendererSourceDigest()).toBe(all);
    expect(rendererSourceDigest(['src-renderer', 'src-shared/contract', 'package-lock.json'])).not.toBe(all);
    expect(
      rendererSourceDigest([
        'src-renderer',
        'src-shared/contract',
        'package.json',
        'package-lock.json',
        'no-such-dir',
      ]),
    ).toBe(all);
  });
});
