/**
 * The scene file's checks of its robot entries (contract/scene.ts runs them): exactly one of
 * `pusher`, `gripper` and `tool`, on the table, and the limits a gripper needs. A registered
 * tool's own fields are checked by its kind (registry.ts).
 */
import type { z } from 'zod';
import { offTableMessage } from '../table-region';

/** The robot checks of a scene: one robot, on the table, and what a gripper needs. */
export function robotIssues(
  scene: {
    pusher?: { position: { x: number; y: number } } | undefined;
    tool?: unknown;
    gripper?: { pose: { x: number; y: number } } | undefined;
    goal: { grasp?: true | undefined };
    limits: { maxYawRate?: number | undefined; maxOpeningSpeed?: number | undefined };
    table: { size: { x: number; y: number } };
  },
  ctx: z.RefinementCtx,
  offTable: (p: { x: number; y: number }, path: (string | number)[]) => void,
): void {
  if (scene.pusher) offTable(scene.pusher.position, ['pusher', 'position']);
  const robots = [scene.pusher, scene.gripper, scene.tool].filter((r) => r !== undefined).length;
  if (robots === 0)
    ctx.addIssue({
      code: 'custom',
      path: ['pusher'],
      message: 'a scene needs a robot: a pusher, a gripper or a tool',
    });
  if (robots > 1)
    ctx.addIssue({
      code: 'custom',
      path: [scene.gripper ? 'gripper' : 'tool'],
      message: 'a scene has one robot: a pusher, a gripper or a tool, not more',
    });
  if (scene.goal.grasp && !scene.gripper)
    ctx.addIssue({ code: 'custom', path: ['goal', 'grasp'], message: 'a grasp goal needs a gripper' });
  if (!scene.gripper) return;
  const { x, y } = scene.gripper.pose;
  if (Math.abs(x) > scene.table.size.x / 2 || Math.abs(y) > scene.table.size.y / 2)
    ctx.addIssue({
      code: 'custom',
      path: ['gripper', 'pose'],
      message: offTableMessage({ x, y }, scene.table),
    });
  for (const field of ['maxYawRate', 'maxOpeningSpeed'] as const) {
    if (scene.limits[field] === undefined)
      ctx.addIssue({ code: 'custom', path: ['limits', field], message: 'a gripper scene needs this limit' });
  }
}
