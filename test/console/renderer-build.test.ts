import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt } from '../../src-main/console/renderer-build';

const outDir = path.join(mkdtempSync(path.join(tmpdir(), 'parapush-renderer-')), 'renderer');
afterAll(() => rmSync(path.dirname(outDir), { recursive: true, force: true }));

describe('renderer build (what web mode runs when out/renderer is missing)', () => {
  it('builds the console UI with the strict CSP meta tag', async () => {
    const said: string[] = [];
    await ensureRendererBuilt(outDir, (line) => said.push(line));
    expect(said[0]).toMatch(/not built yet/);
    const html = readFileSync(path.join(outDir, 'index.html'), 'utf8');
    expect(html).toContain('Content-Security-Policy');
    expect(html).not.toContain('unsafe-eval');
    expect(readdirSync(path.join(outDir, 'assets')).some((f) => f.endsWith('.js'))).toBe(true);
    // A second call finds the build and does nothing.
    await ensureRendererBuilt(outDir, (line) => said.push(line));
    expect(said).toHaveLength(2);
  });
});
