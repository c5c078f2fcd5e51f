/**
 * The layering of docs/architecture.md holds: lint rejects a backwards import, and no two folders
 * import each other, however indirectly.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

async function lintAs(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

/** Folder of a source file: src-main/<folder>, src-shared/<folder>, src-workers/<folder>, or the top-level folder. */
function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/** Strongly connected groups of more than one folder (Tarjan). */
function folderCycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) cycles.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

describe('layers', () => {
  it('lint rejects a backwards import (the fixture, placed in the motion-capture client)', async () => {
    const code = readFileSync(path.join(root, 'test/fixtures/layers/backwards-import.ts.txt'), 'utf8');
    const errors = await lintAs('src-main/mocap/decoder.ts', code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/src-main\/mocap may import only contract, common/);
    // The same import is legal one layer up, in the planner.
    expect(await lintAs('src-main/planning/fixture.ts', code)).toEqual([]);
  });

  it('keeps Node and main-process code out of the renderer, and the real clients off the virtual lab', async () => {
    expect(
      await lintAs('src-renderer/src/lib/x.ts', "import { readFileSync } from 'node:fs';\n"),
    ).toHaveLength(1);
    expect(
      await lintAs(
        'src-renderer/src/lib/x.ts',
        "import { FinePool } from '../../../src-main/parareal/fine-pool';\n",
      ),
    ).toHaveLength(1);
    expect(
      await lintAs('src-renderer/src/lib/x.ts', "import type { Scene } from '#contract/scene';\n"),
    ).toEqual([]);
    // The shared folders are named by their alias, never by a path into src-shared.
    expect(
      await lintAs('src-main/robot/x.ts', "import type { Scene } from '../../src-shared/contract/scene';\n"),
    ).toHaveLength(1);
    expect(
      await lintAs('src-main/robot/x.ts', "import { VirtualLab } from '../virtual-lab/virtual-lab';\n"),
    ).toHaveLength(1);
  });

  // One madge graph of the sources, shared by the checks below.
  let graphOfFiles: ReturnType<typeof madge> | undefined;
  const sources = () =>
    (graphOfFiles ??= madge(['src-main', 'src-shared', 'src-workers'], {
      baseDir: root,
      fileExtensions: ['ts'],
      tsConfig: path.join(root, 'tsconfig.main.json'),
    }));

  it('has no import cycles between folders', async () => {
    const result = await sources();
    const graph = new Map<string, Set<string>>();
    for (const [file, deps] of Object.entries(result.obj())) {
      const from = folderOf(file);
      if (!graph.has(from)) graph.set(from, new Set());
      for (const dep of deps) if (folderOf(dep) !== from) graph.get(from)!.add(folderOf(dep));
    }
    // The graph is real: the planner imports Parareal.
    expect(graph.get('src-main/planning')?.has('src-main/parareal')).toBe(true);
    // Imports through an alias are edges too (package.json "imports").
    expect(graph.get('src-main/planning')?.has('src-shared/contract')).toBe(true);
    expect(folderCycles(graph)).toEqual([]);
  });

  it('has no import cycles between files, those of the contract included', async () => {
    const result = await sources();
    // The graph is real: the console API imports the planner's events.
    expect(result.obj()['src-shared/contract/console-api.ts']).toContain(
      'src-shared/contract/planner-events.ts',
    );
    expect(result.circular()).toEqual([]);
  });
});
