/** Locates the captured NatNet packets shared beside the clone (../shared/fixtures/natnet). */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const fixtureDir = path.resolve(repoRoot, '../shared/fixtures/natnet');

export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(path.join(fixtureDir, name)));
}

export function fixtureNames(): string[] {
  return readdirSync(fixtureDir)
    .filter((f) => f.endsWith('.bin'))
    .sort();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- expected.json is hand-written, read field by field
export const expected: any = JSON.parse(readFileSync(path.join(fixtureDir, 'expected.json'), 'utf8'));
