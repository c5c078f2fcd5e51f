/**
 * The end effector is a type (src-shared/contract/end-effector): code outside its module asks the
 * scene's tool and does not branch on which robot a scene has. This counts what is left of such
 * branches in every source folder: a test of a robot entry (`scene.gripper ? ...`, `if
 * (scene.pusher)`, `x && scene.gripper`, `?? scene.gripper`), an alias of one (`const g =
 * scene.gripper;`, which a later `if (g)` tests), a comparison with a robot's name (`=== 'gripper'`)
 * and robotKind().
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const TOOL_MODULE = 'src-shared/contract/end-effector/';

/** At most this many branches may remain outside the tool module. */
const ALLOWED = 5;

/**
 * Files whose `pusher` and `gripper` are not a scene's robot: the session log's named states and
 * their CSV columns (and the logged states a physics check replays) are keyed by the robot's word
 * in the state's names, and the calibration wizard's, its captures' and its pivot steps' `pusher`
 * is the robot's motion-capture body.
 */
const NOT_A_SCENE = new Set([
  'src-main/session/named-state.ts',
  'src-main/session/csv-export.ts',
  'src-main/lab-physics/executed-pushes.ts',
  'src-main/console/calibration-wizard.ts',
  'src-main/console/calibration-capture.ts',
  'src-renderer/src/components/PivotSteps.svelte',
]);

const BRANCH = new RegExp(
  [
    String.raw`\.(gripper|pusher)\b\s*(\?(?![.?:])|&&|\|\||[!=]==\s*undefined)`,
    String.raw`\bif\s*\(\s*!?\s*[\w.]*\.(gripper|pusher)\s*\)`,
    String.raw`\?\?\s*[\w.]*\.(gripper|pusher)\b`,
    String.raw`[!=]==\s*'(gripper|pusher)'`,
    String.raw`\brobotKind\(`,
    String.raw`=\s*[\w.]+\.(gripper|pusher)\s*;`,
  ].join('|'),
);

/** Source lines (not comments) that branch on a scene's robot. */
function robotBranches(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => !/^(\*|\/\/|\/\*)/.test(l) && BRANCH.test(l));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(rel);
    return /\.(ts|svelte)$/.test(e.name) ? [rel] : [];
  });
}

describe('branches on the scene robot', () => {
  it('are found where they are written', () => {
    expect(robotBranches('  const dofs = scene.gripper ? 4 : 2;')).toHaveLength(1);
    expect(robotBranches('if (!scene.pusher) return;')).toHaveLength(1);
    expect(robotBranches('const g = this.o.gripper;\nif (g) {')).toHaveLength(1);
    expect(robotBranches("if (layout.robot === 'gripper')")).toHaveLength(1);
    expect(robotBranches('const r = (scene.pusher ?? scene.gripper)?.rigidBody;')).toHaveLength(1);
    // Reading a known entry, an optional field's type or a comment is no branch.
    expect(
      robotBranches('const p = scene.pusher?.position;\n  gripper?: Gripper;\n * scene.gripper ? a : b'),
    ).toEqual([]);
  });

  it(`remain at most ${ALLOWED} outside the tool module`, () => {
    const found = ['src-main', 'src-shared', 'src-workers', 'src-renderer/src']
      .flatMap(sourceFiles)
      .filter((f) => !f.startsWith(TOOL_MODULE) && !NOT_A_SCENE.has(f))
      .flatMap((f) => robotBranches(readFileSync(path.join(root, f), 'utf8')).map((l) => `${f}: ${l}`));
    // The list names them when there are too many.
    expect(found.length, found.join('\n')).toBeLessThanOrEqual(ALLOWED);
  });
});
