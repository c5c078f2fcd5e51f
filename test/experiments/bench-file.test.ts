import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { benchMachineSchema, benchTable } from '../../src-main/experiments/bench-file';
import { benchRoot, MACHINE } from '../helpers/bench-root';

const table = benchTable(
  'demo',
  z.object({ machine: benchMachineSchema, rows: z.array(z.object({ name: z.string() })).min(1) }),
  (r, from) => [`From ${from}:`, '', ...r.rows.map((x) => `| ${x.name} |`)],
);

describe('bench table', () => {
  it("renders the result's lines with where its figures come from", () => {
    expect(table(benchRoot({ demo: { machine: MACHINE, rows: [{ name: 'a' }, { name: 'b' }] } }))).toBe(
      'From `bench/results/demo.json`, recorded 2026-01-02 on 4 cores (Test CPU, Node v20.0.0); the file records no commit:\n\n| a |\n| b |',
    );
  });

  it('names the commit a result records, and says when that code had local changes', () => {
    const hash = '0123456789abcdef0123456789abcdef01234567';
    const at = (commit: string): string =>
      table(benchRoot({ demo: { machine: { ...MACHINE, commit }, rows: [{ name: 'a' }] } }));
    expect(at(hash)).toContain('(Test CPU, Node v20.0.0); at commit `0123456789ab`:');
    expect(at(`${hash}-dirty`)).toContain('at commit `0123456789ab` with local changes:');
  });

  it('says the bench has not been run when no result is committed', () => {
    expect(table(benchRoot({}))).toBe(
      'Not measured: no `bench/results/demo.json` is committed (`npm run bench -- demo` writes it).',
    );
  });

  it('names the file and the wrong field of a result that does not match', () => {
    expect(() => table(benchRoot({ demo: { machine: MACHINE, rows: [{ name: 1 }] } }))).toThrow(
      /bench\/results\/demo\.json: invalid bench result demo\n {2}rows\[0\]\.name: /,
    );
  });
});
