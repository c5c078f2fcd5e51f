/**
 * The virtual lab with a gripper scene (the clutter gripper: test/fixtures/lab-gripper-scene.json,
 * light enough for a real-time world on a loaded machine): its Robotiq drives the world's fingers,
 * its UR turns the gripper about base z through the control program, its cameras stream the
 * gripper's pose with its yaw, and a supervised run grasps through all of it.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GRIPPER_OPENING, GRIPPER_YAW } from '#contract/end-effector/parallel-gripper';
import {
  ObjectStatus,
  openingAt,
  positionFor,
  RobotiqGripper,
  speedRegisterFor,
} from '../../src-main/robot/gripper';
import { asPositionRange, measureGripperRange } from '../../src-main/robot/gripper-range';
import { SessionLog } from '../../src-main/session/reader';
import { repoRoot } from '../helpers/scenes';
import { labsPerTest, quickGraspTask, recordedRunOnLab } from '../helpers/virtual-lab';

const gripperScene = path.join(repoRoot, 'test/fixtures/lab-gripper-scene.json');
const sleep = (s: number): Promise<void> => new Promise((r) => setTimeout(r, s * 1000));

const labs = labsPerTest();

/** Polls until `done` holds or `timeout` s pass; returns whether it held. */
async function until(done: () => Promise<boolean> | boolean, timeout = 5): Promise<boolean> {
  const end = performance.now() + timeout * 1000;
  while (performance.now() < end) {
    if (await done()) return true;
    await sleep(0.02);
  }
  return false;
}

describe('the virtual lab with a gripper scene', () => {
  it("moves the world's fingers as the Robotiq is commanded and reports where they are", async () => {
    // The controller's default unlock time: this test drives the Robotiq alone.
    const lab = await labs.lab({ scene: gripperScene, robot: {} });
    const gripper = await RobotiqGripper.connect('127.0.0.1', lab.gripper.port, { poll: 0.01 });
    labs.closeAfter(() => gripper.close());
    const stroke = lab.scene.gripper!.maxOpening;
    const worldOpening = (): number => lab.world.snapshot()[GRIPPER_OPENING]!;
    await gripper.activate();
    // Measured as at every activation: the world's fingers end to end, read at each stop.
    const range = asPositionRange(await measureGripperRange(gripper));
    expect(range.open).toBeLessThan(10);
    expect(range.closed).toBeGreaterThan(220);
    const open = await gripper.openFully();
    expect(openingAt(open.position, stroke, range)).toBeCloseTo(stroke, 2);

    // To 80 mm at 100 mm/s: the world's fingers get there in about 0.6 s, and the Robotiq says so.
    await gripper.move(positionFor(0.08, stroke, range), speedRegisterFor(0.1), 24);
    expect(await until(async () => (await gripper.get('OBJ')) === ObjectStatus.AT_POSITION)).toBe(true);
    expect(worldOpening()).toBeCloseTo(0.08, 2);
    expect(openingAt(await gripper.get('POS'), stroke, range)).toBeCloseTo(worldOpening(), 2);

    // Back open: the fingers follow the other way.
    await gripper.move(0, 255, 24);
    expect(await until(async () => (await gripper.get('OBJ')) === ObjectStatus.AT_POSITION)).toBe(true);
    expect(worldOpening()).toBeGreaterThan(stroke - 0.003);
  });

  it('turns the gripper with the tool, and motion capture streams its yaw', async () => {
    const env = await labs.labAndLink({ scene: gripperScene });
    const { lab, link } = env;
    expect(await until(() => link.poses()?.ok === true)).toBe(true);
    const yaw0 = link.poses()!.pusher.pose!.theta;
    expect(yaw0).toBeCloseTo(lab.scene.gripper!.pose.theta, 2);
    // 0.5 rad/s about base z (through the run's supervisor in the safety thread, the one path to
    // the arm) until the world's gripper has turned 0.3 rad. The program starts waiting for a
    // re-arm, and on a loaded machine the command stream can stall past its watchdog: in either
    // state a twist is ignored, so the test re-arms with a hold (a stop), as the program demands.
    const rate = Math.min(0.5, lab.scene.limits.maxYawRate!);
    const sup = link.safety.supervise(lab.scene, { mocapMaxAge: 1, robotStateMaxAge: 1, commandMaxGap: 1 });
    expect(await sup.arm({ ok: true, checks: [] })).toBe(true);
    sup.startRun();
    const world = (): number => lab.world.snapshot()[GRIPPER_YAW]!;
    const waitsForRearm = (): boolean => {
      const state = link.robot.latest?.program.state;
      return state === 'WAIT_REARM' || state === 'TRIPPED';
    };
    const turned = await until(() => {
      if (waitsForRearm()) sup.hold();
      else expect(sup.command(0, 0, rate), JSON.stringify(sup.stopReason)).toBe(true);
      return world() - yaw0 > 0.3;
    }, 10);
    sup.finish('turned');
    await sup.settled();
    expect(turned).toBe(true);
    // At rest again (the stop's 6 rad/s^2 and the world's tracking), the cameras see the new yaw.
    expect(await until(() => Math.abs(lab.ur.controller.arm.yawRate) < 1e-9, 2)).toBe(true);
    await sleep(0.3);
    expect(world() - yaw0).toBeGreaterThan(0.3);
    expect(world() - yaw0).toBeLessThan(0.4);
    expect(await until(() => Math.abs(link.poses()!.pusher.pose!.theta - world()) < 0.005, 2)).toBe(true);
    // The grasp centre stayed put while the tool turned about its vertical offset.
    const [x, y] = lab.world.layout.pusherPosition(lab.world.snapshot());
    expect(Math.hypot(x - lab.scene.gripper!.pose.x, y - lab.scene.gripper!.pose.y)).toBeLessThan(0.002);
  });

  it('runs a supervised grasp to its end through the real protocols, every log channel filled', async () => {
    const env = await labs.labAndLink({ scene: gripperScene });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gripper-run-'));
    const result = await recordedRunOnLab(env, quickGraspTask(6), dir, { kind: 'fine' });
    // Armed on the gripper's own pre-flight check, then the run ended: a grasp, or a failure it
    // names (on a loaded machine the supervisor may stop it for stale motion capture).
    expect(result.preflight.checks.find((c) => c.id === 'gripper-open')).toMatchObject({ ok: true });
    expect(result.preflight.ok, result.reason).toBe(true);
    const ended = result.end.cause === 'task' ? result.end.result : result.end.cause;
    expect(['success', 'failure', 'action-limit', 'time-limit', 'safety-stop']).toContain(ended);
    expect(result.reason.length).toBeGreaterThan(0);
    if (result.outcome === 'finished') {
      // Held in the world, not only in the estimate: the fingers closed on the target.
      const world = env.lab.world.snapshot();
      expect(world[GRIPPER_OPENING]!).toBeLessThan(0.07);
      expect(world[GRIPPER_OPENING]!).toBeGreaterThan(0.05);
    }
    const files = readdirSync(dir).filter((f) => f.endsWith('.mcap'));
    const log = await SessionLog.open(path.join(dir, files[0]!));
    const counts = new Map(log.channelCounts().map((c) => [c.topic, c.messages]));
    const messages = [];
    for await (const m of log.messages())
      if (m.topic === '/supervisor/decision' || m.topic === '/robot/command') messages.push(m);
    await log.close();
    for (const topic of [
      '/scene/state',
      '/robot/state',
      '/robot/command',
      '/mocap/poses',
      '/planner/step',
      '/supervisor/decision',
      '/run/outcome',
    ])
      expect(counts.get(topic) ?? 0, topic).toBeGreaterThan(0);
    if (result.actions > 0) {
      // The turns and finger motions the supervisor sent are on record.
      expect(messages.some((m) => (m.message as { kind: string }).kind === 'fingers')).toBe(true);
      expect(messages.some((m) => typeof (m.message as { yawRate?: number }).yawRate === 'number')).toBe(
        true,
      );
    }
  }, 120_000);
});
