/**
 * `parapush run` prints the run's two checklists, each under a heading that says which: before
 * gripping (the gripper's own check LATER: it is judged after the grip) and after gripping.
 */
import { describe, expect, it } from 'vitest';
import { checklistLines } from '../../src-main/cli/commands/run';
import type { PreflightReport } from '../../src-main/safety/preflight';

const report = (held: boolean, mocap = true): PreflightReport => ({
  ok: held && mocap,
  checks: [
    { id: 'mocap', label: 'Motion capture fresh', ok: mocap, reason: mocap ? 'frame 12' : 'no frame' },
    { id: 'pusher-held', label: 'Pusher held by the gripper', ok: held, reason: held ? 'OBJ 2' : 'not held' },
  ],
});

describe('parapush run: the two checklists', () => {
  it('labels the first as before gripping, with the gripper check LATER, not FAIL', () => {
    expect(checklistLines(report(false), 'before-gripping')).toEqual([
      "pre-flight checks before gripping (the gripper's check follows the grip):",
      '  [ ok ] Motion capture fresh: frame 12',
      '  [LATER] Pusher held by the gripper: not held',
    ]);
  });

  it('labels the second as after gripping, where every red check is a FAIL', () => {
    expect(checklistLines(report(false, false), 'after-gripping')).toEqual([
      'pre-flight checks after gripping (every check must be green to arm):',
      '  [FAIL] Motion capture fresh: no frame',
      '  [FAIL] Pusher held by the gripper: not held',
    ]);
    expect(checklistLines(report(false, false), 'before-gripping')[1]).toBe(
      '  [FAIL] Motion capture fresh: no frame',
    );
  });
});
