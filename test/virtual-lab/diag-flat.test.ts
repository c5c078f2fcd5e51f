/**
 * The flat pusher (test/contract/end-effector/flat-pusher.ts, a tool no source file names) on the
 * virtual lab in its own thread, as the console runs it: the lab's world, its cameras and
 * controller, the lab link, the safety thread's supervisor and the planner take it from the
 * registry (the threads import the module that registered it), and a supervised run through the
 * real protocols pushes the object to the goal with it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import '../contract/end-effector/flat-pusher';
import { endEffectorOf } from '#contract/end-effector/registry';
import { sceneSchema } from '#contract/scene';
import { LabLink, loopbackLabAddress } from '../../src-main/lab-link/lab-link';
import { VirtualLabThread } from '../../src-main/virtual-lab/lab-thread/lab-thread';
import { FREE_LAB_PORTS } from '../helpers/lab-config';
import { quickLabTask, runOnLab } from '../helpers/virtual-lab';

/** test/fixtures/lab-short-scene.json with the flat pusher in place of the cylinder. */
const scene = {
  name: 'lab-flat-push',
  table: { size: { x: 0.6, y: 0.6 }, friction: 0.8 },
  tool: {
    kind: 'flat-pusher',
    width: 0.12,
    depth: 0.02,
    height: 0.05,
    position: { x: -0.175, y: 0 },
    rigidBody: 'pusher',
  },
  sliders: [
    {
      id: 'object',
      shape: { kind: 'cylinder', radius: 0.05115, height: 0.0245 },
      mass: 0.5,
      friction: 0.2,
      pose: { x: -0.1, y: 0, theta: 0 },
      rigidBody: 'object',
    },
  ],
  goal: { slider: 'object', center: { x: -0.02, y: 0 }, radius: 0.04 },
  limits: { maxPusherSpeed: 0.1 },
};

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe.each(Array.from({ length: Number(process.env.DIAG_N ?? 5) }, (_, i) => i))('diag %i', () => {
  it('pushes the object to the goal in a supervised run through the real protocols', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'flat-pusher-')), 'scene.json');
    writeFileSync(file, JSON.stringify(scene));
    const lab = await VirtualLabThread.start({
      scene: file,
      ports: FREE_LAB_PORTS,
      mocap: { multicast: false },
      robot: { unlockDelay: 0.3 },
      world: { noiseVariance: 0, seed: 1 },
    });
    closers.push(() => lab.stop());
    const link = await LabLink.connect(loopbackLabAddress(lab.ports), sceneSchema.parse(scene), lab.setup);
    closers.push(() => link.close());
    expect(endEffectorOf(link.scene).kind).toBe('flat-pusher');
    // The fine model: the coarse models know only the cylindrical pusher.
    const t0 = performance.now();
    const result = await runOnLab({ link }, quickLabTask(6), { model: { kind: 'fine' } });
    const sum = result.summary!;
    console.log(JSON.stringify({
      wall: (performance.now() - t0) / 1000,
      end: result.end,
      actions: result.actions,
      planning: sum.planningTimes.map((t) => +t.toFixed(3)),
      controls: sum.controls.map((u) => u.map((v) => +v.toFixed(4))),
      states: sum.states.map((x) => Array.from(x).slice(0, 6).map((v) => +v.toFixed(4))),
    }));
    expect(result.preflight.ok, result.reason).toBe(true);
    expect(result.end, result.reason).toEqual({ cause: 'task', result: 'success' });
    expect(result.actions).toBeGreaterThan(0);
    // The lab's cameras see the object in the goal (the lab's physics moved it, not the planner's).
    const object = link.poses()!.sliders[0]!.pose!;
    expect(Math.hypot(object.x - scene.goal.center.x, object.y)).toBeLessThan(scene.goal.radius);
  });
});
