/**
 * The virtual lab's world in real time: its process noise models the uncertainty of pushing, so an
 * object at rest stays where it is while the arm holds still (as a real one does while the planner
 * thinks), and is shaken only while the robot moves.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { initialState } from '#contract/state';
import { LabWorld } from '../../src-main/virtual-lab/lab-world';
import { RobotAdapter } from '../../src-main/robot/adapter';
import { referenceScene } from '../helpers/scenes';

const scene = referenceScene('isrr-obstacle');
const adapter = new RobotAdapter({
  calibration: { yaw: 0, offset: [0, -0.5, 0] },
  pusherOffset: [0, 0, 0.15],
});
const down = [0, Math.PI, 0];
/** The tool pose that holds the pusher on the scene's start. */
const home = [...adapter.toolPosition({ ...scene.pusher!.position, z: 0.004 }, down), ...down];

let world: LabWorld | undefined;
afterEach(() => world?.dispose());

/** How far the object went from its start while the world ran for `seconds` of real time. */
async function objectDrift(seconds: number): Promise<number> {
  const start = initialState(scene);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const now = world!.snapshot();
  return Math.hypot(now[2]! - start[2]!, now[3]! - start[3]!);
}

describe('virtual lab world', () => {
  it('leaves an untouched object where it is while the arm holds still, even with process noise', async () => {
    world = await LabWorld.create(scene, adapter, { noiseVariance: 1e-4, seed: 1 });
    world.setTool({ pose: home, velocity: [0, 0, 0] });
    world.start();
    expect(await objectDrift(1)).toBeLessThan(1e-4);
  });

  it('shakes the object with the noise while the robot moves, away from it', async () => {
    world = await LabWorld.create(scene, adapter, { noiseVariance: 1e-4, seed: 1 });
    // The tool moves away from the object (-x in the table: the robot base frame's -x here).
    world.setTool({ pose: home, velocity: [-0.01, 0, 0] });
    world.start();
    expect(await objectDrift(1)).toBeGreaterThan(5e-4);
  });
});
