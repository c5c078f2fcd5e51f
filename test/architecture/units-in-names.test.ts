/**
 * Seconds everywhere, named without a unit: lint rejects a declared name that ends in one
 * (eslint.config.js, unitsInNames), and lets another API's millisecond property be read; and one
 * clock: only the clock modules read one (oneClock).
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });

/** The names the unit rule rejects in `code`, linted as if it were `file`. */
async function rejectedNames(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages
    .filter((m) => m.ruleId === '@typescript-eslint/naming-convention')
    .map((m) => /name `([^`]+)`/.exec(m.message)![1]!);
}

describe('units in names', () => {
  it('rejects names ending in a unit of time, in every source folder, tests and benches', async () => {
    const code = [
      'export const waitMs = 1;',
      'export const STALE_AFTER_MS = 100;',
      'export const SETTLE_S = 0.5;',
      'export function delaySeconds(): number { return 1; }',
      'export interface Options { pollMillis: number; ageS: number }',
      'export const o = { refreshSecs: 2 };',
    ].join('\n');
    const all = ['waitMs', 'STALE_AFTER_MS', 'SETTLE_S', 'delaySeconds', 'pollMillis', 'ageS', 'refreshSecs'];
    for (const file of [
      'src-main/robot/unit-fixture.ts',
      'src-shared/contract/unit-fixture.ts',
      'test/unit-fixture.ts',
      'bench/unit-fixture.ts',
    ])
      expect(await rejectedNames(file, code), file).toEqual(all);
  });

  it("passes seconds named for what they hold, the clocks, and reading another API's ms property", async () => {
    const code = [
      "import { stat } from 'node:fs/promises';",
      "import { monotonicSeconds } from '../common/clock';",
      '/** s */',
      'export const staleAfter = 0.25;',
      'export const STOP_TIMEOUT = 5;',
      'export async function modified(file: string): Promise<number> {',
      '  return (await stat(file)).mtimeMs / 1000 + monotonicSeconds() * 0;',
      '}',
    ].join('\n');
    expect(await rejectedNames('src-main/robot/unit-fixture.ts', code)).toEqual([]);
  });

  it('lets only the clock modules read a clock', async () => {
    const code = [
      'export const a = performance.now();',
      'export const b = Date.now();',
      'export const c = process.hrtime.bigint();',
    ].join('\n');
    const readers = async (file: string): Promise<number> => {
      const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
      return result!.messages.filter((m) => m.ruleId === 'no-restricted-properties').length;
    };
    expect(await readers('src-main/parareal/clock-fixture.ts')).toBe(3);
    expect(await readers('src-shared/physics/clock-fixture.ts')).toBe(3);
    expect(await readers('src-main/common/clock.ts')).toBe(0);
  });
});
