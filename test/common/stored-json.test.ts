import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readStoredJson, StoredJsonError } from '../../src-main/common/stored-json';

const schema = z
  .object({
    name: z.string(),
    sliders: z.array(z.object({ pose: z.object({ x: z.number(), y: z.number() }) }).strict()),
  })
  .strict();

const dir = mkdtempSync(path.join(os.tmpdir(), 'stored-json-'));
const fileWith = (name: string, text: string): string => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
};

/** The error readStoredJson throws for `file`; fails the test when it throws none. */
function errorOf(file: string, options?: Parameters<typeof readStoredJson>[2]): Error {
  try {
    readStoredJson(file, schema, options);
  } catch (err) {
    return err as Error;
  }
  throw new Error(`${file} was read without an error`);
}

class DomainError extends Error {}

describe('readStoredJson', () => {
  it("gives back the schema's output for a valid file", () => {
    const file = fileWith(
      'good.json',
      JSON.stringify({ name: 'a', sliders: [{ pose: { x: 0.1, y: -0.2 } }] }),
    );
    expect(readStoredJson(file, schema)).toEqual({ name: 'a', sliders: [{ pose: { x: 0.1, y: -0.2 } }] });
    // A schema that transforms is applied: the caller gets its output, not the raw JSON.
    expect(
      readStoredJson(
        file,
        schema.transform((s) => s.sliders.length),
      ),
    ).toBe(1);
  });

  it('says "no such file" and names the file when it is missing', () => {
    const file = path.join(dir, 'absent.json');
    const err = errorOf(file);
    expect(err).toBeInstanceOf(StoredJsonError);
    expect(err.message).toBe(`no such file: ${file}`);
    expect((err as StoredJsonError).fault).toBe('missing');
    expect((err as StoredJsonError).file).toBe(file);
  });

  it('names the file it cannot read, with the reason', () => {
    // A directory: unreadable as a file whoever runs the test (root reads a file of mode 000).
    const file = mkdtempSync(path.join(dir, 'folder-'));
    const err = errorOf(file) as StoredJsonError;
    expect(err.fault).toBe('unreadable');
    expect(err.message).toMatch(new RegExp(`^${file}: cannot read: .*EISDIR`));
  });

  it('names the file and says it is not valid JSON', () => {
    const file = fileWith('broken.json', '{"name": "a",');
    const err = errorOf(file) as StoredJsonError;
    expect(err.fault).toBe('not-json');
    expect(err.message).toMatch(new RegExp(`^${file}: not valid JSON: `));
    expect(err.problems).toEqual([{ path: '', message: expect.stringMatching(/^not valid JSON: /) }]);
  });

  it('names the file, what it holds and every wrong field by its path', () => {
    const file = fileWith('wrong.json', JSON.stringify({ name: 3, sliders: [{ pose: { x: 0, y: 'up' } }] }));
    const err = errorOf(file, { what: 'scene draft' }) as StoredJsonError;
    expect(err.fault).toBe('invalid');
    expect(err.message.split('\n')).toEqual([
      `${file}: invalid scene draft`,
      expect.stringMatching(/^ {2}name: .*string/),
      expect.stringMatching(/^ {2}sliders\[0\]\.pose\.y: .*number/),
    ]);
    expect(err.problems.map((p) => p.path)).toEqual(['name', 'sliders[0].pose.y']);
  });

  it('names a field the schema does not know', () => {
    const file = fileWith(
      'extra.json',
      JSON.stringify({ name: 'a', sliders: [{ pose: { x: 0, y: 0 }, mass: 1 }] }),
    );
    expect(errorOf(file).message).toMatch(/\n {2}sliders\[0\]\.mass: unknown field/);
  });

  it('says "(root)" when the whole value is wrong', () => {
    const file = fileWith('array.json', '[]');
    expect(errorOf(file).message).toMatch(new RegExp(`^${file}: invalid contents\\n {2}\\(root\\): `));
  });

  it("throws the caller's error class with the same message and the StoredJsonError as cause", () => {
    for (const file of [
      path.join(dir, 'absent.json'),
      fileWith('bad.json', 'nope'),
      fileWith('empty.json', '{}'),
    ]) {
      const err = errorOf(file, { what: 'thing', error: DomainError });
      expect(err).toBeInstanceOf(DomainError);
      expect(err.cause).toBeInstanceOf(StoredJsonError);
      expect(err.message).toBe((err.cause as StoredJsonError).message);
      expect(err.message).toContain(file);
    }
  });
});
