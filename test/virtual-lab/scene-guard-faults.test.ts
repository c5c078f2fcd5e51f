/**
 * Fault injection in the virtual lab: the scene as a safety limit. A task without obstacle costs
 * pushes its object into a wall; a push carries an object off the table's edge; a calibration
 * moves under a run. The supervisor must stop each one itself (its reason, not the run's own
 * end), within a frame and a command period of what motion capture shows, with the object at most
 * 5 mm into the wall or past the edge. Depths are measured on the lab world's true state, not on
 * what the run saw.
 */
import { describe, expect, it } from 'vitest';
import { monotonicSeconds } from '../../src-main/common/clock';
import path from 'node:path';
import { sceneGuardFor, shapeGap, guardShape } from '../../src-main/safety/scene-guard';
import type { Setup } from '../../src-main/calibration/setup-file';
import { labsPerTest, quickLabTask, runOnLab, stopCommandTimes } from '../helpers/virtual-lab';
import { repoRoot } from '../helpers/scenes';

const MAX_DEPTH = 0.005;
/**
 * How close a pushed object may come at the speed limit (0.1 m/s) before the arm must stop (m):
 * a frame and a command period of motion plus braking at 1.5 m/s^2 (supervisor.ts stoppingMargin).
 */
const STOPPING_MARGIN = 0.1 * (1 / 120 + 0.008) + 0.1 ** 2 / (2 * 1.5);
/** One 120 Hz frame, one 8 ms command period, and scheduling slack for a loaded two-core machine (s). */
const STOP_WITHIN = 0.0084 + 0.008 + 0.04;

const labs = labsPerTest();

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('the supervisor guards the scene in the virtual lab', () => {
  it('stops a task without obstacle costs when it pushes the object into a wall, at most 5 mm in', async () => {
    const env = await labs.labAndLink({ scene: path.join(repoRoot, 'test/fixtures/lab-wall-scene.json') });
    const { lab } = env;
    const task = quickLabTask(8);
    expect(task.costs.map((c) => c.term)).toEqual(['goal-distance']);
    const wall = sceneGuardFor(lab.scene).obstacles[0]!;
    const object = guardShape(lab.scene.sliders[0]!.shape);
    // The true object against the wall, at every frame the virtual Motive sends.
    let firstContactAt: number | undefined;
    let deepest = -Infinity;
    lab.natnet.onFrameSent(() => {
      const pose = lab.world.layout.sliderPose(lab.world.snapshot(), 0);
      const depth = -shapeGap({ shape: object, ...pose }, wall);
      deepest = Math.max(deepest, depth);
      if (depth >= 0) firstContactAt ??= monotonicSeconds();
    });
    const stops = stopCommandTimes(lab.ur);
    const result = await runOnLab(env, task);
    // Let the arm come to rest and the object settle before the deepest point is read.
    await sleep(400);
    expect(result.end, result.reason).toEqual({ cause: 'safety-stop' });
    expect(result.supervisor.stopReason).toMatchObject({
      code: 'obstacle-contact',
      body: 'object',
      obstacle: 'wall',
    });
    expect(result.reason).toMatch(
      /^object (touching wall \(\d+\.\d mm deep\)|pushed towards wall, \d+\.\d mm away: closer than the arm can stop)$/,
    );
    // Stopped near the wall, not anywhere: what motion capture showed when the supervisor decided.
    const gap = (result.supervisor.stopReason as { gap: number }).gap;
    expect(gap).toBeLessThanOrEqual(STOPPING_MARGIN);
    expect(gap).toBeGreaterThan(-MAX_DEPTH);
    // The stop is due on the first frame that shows contact, or earlier (closer than the arm can stop).
    const decidedAt = result.supervisor.stoppedAt!;
    const stopAt = stops.find((t) => t >= decidedAt)!;
    if (firstContactAt !== undefined)
      expect(stopAt - firstContactAt, 's from the first frame in contact to the stop').toBeLessThan(
        STOP_WITHIN,
      );
    else expect(stopAt).toBeDefined();
    expect(deepest, 'deepest the object went into the wall (m)').toBeLessThanOrEqual(MAX_DEPTH);
  });

  it('stops a push that carries the object off the table edge, at most 5 mm past it', async () => {
    const env = await labs.labAndLink({ scene: path.join(repoRoot, 'test/fixtures/lab-edge-scene.json') });
    const { lab, link } = env;
    // The run's supervisor in the safety thread, at 0.1 m/s: the scene's guard and workspace.
    const sup = link.safety.supervise(
      { ...lab.scene, limits: { ...lab.scene.limits, maxPusherSpeed: 0.1 } },
      {},
    );
    try {
      expect(await link.prepareGripper()).toBe(true);
      await link.robot.waitForState(() => true, 2);
      while (link.poses()?.ok !== true) await sleep(10);
      const edge = lab.scene.table.size.x / 2;
      let firstPastAt: number | undefined;
      let farthest = -Infinity;
      lab.natnet.onFrameSent(() => {
        const x = lab.world.layout.sliderPose(lab.world.snapshot(), 0).x;
        farthest = Math.max(farthest, x - edge);
        if (x >= edge) firstPastAt ??= monotonicSeconds();
      });
      const stops = stopCommandTimes(lab.ur);
      expect(await sup.arm({ ok: true, checks: [] })).toBe(true);
      sup.startRun();
      // Straight at the edge at the speed limit, a command every 8 ms, until the supervisor refuses.
      const started = monotonicSeconds();
      while (sup.command(0.1, 0) && monotonicSeconds() - started < 5) await sleep(8);
      await sleep(400);
      expect(sup.stopReason, JSON.stringify(sup.stopReason)).toMatchObject({
        code: 'off-table',
        body: 'object',
      });
      const excess = (sup.stopReason as { excess: number }).excess;
      expect(excess).toBeGreaterThanOrEqual(-STOPPING_MARGIN);
      expect(excess).toBeLessThan(MAX_DEPTH);
      const stopAt = stops.find((t) => t >= sup.stoppedAt!)!;
      expect(stopAt).toBeDefined();
      if (firstPastAt !== undefined)
        expect(stopAt - firstPastAt, 's from the first frame past the edge to the stop').toBeLessThan(
          STOP_WITHIN,
        );
      expect(farthest, 'farthest the object centre went past the edge (m)').toBeLessThanOrEqual(MAX_DEPTH);
    } finally {
      sup.abort();
    }
  });

  it('refuses to arm when the calibrations disagree, and stops a run when one moves under it', async () => {
    const env = await labs.labAndLink();
    const { link } = env;
    const good = link.setup;
    // Motive's frame off by 12 mm along x: what a bumped camera rig does to the calibration.
    const shifted: Setup = {
      ...good,
      mocap: {
        ...good.mocap,
        translation: [
          good.mocap.translation[0] + 0.012,
          good.mocap.translation[1],
          good.mocap.translation[2],
        ],
      },
    };
    link.useSetup(shifted);
    const refused = await runOnLab({ link }, quickLabTask());
    expect(refused.end).toEqual({ cause: 'not-armed' });
    const agreement = refused.preflight.checks.find((c) => c.id === 'calibration-agreement');
    expect(agreement?.ok).toBe(false);
    expect(agreement?.reason).toMatch(/^1[12]\.\d mm apart \(limit 5\.\d mm\)$/);

    link.useSetup(good);
    let injectedAt: number | undefined;
    const stops = stopCommandTimes(env.lab.ur);
    const result = await runOnLab({ link }, quickLabTask(), {
      onStep: () => {
        if (injectedAt !== undefined) return;
        injectedAt = -1;
        setTimeout(() => {
          injectedAt = monotonicSeconds();
          link.useSetup(shifted);
        }, 150);
      },
    });
    expect(result.preflight.ok).toBe(true);
    expect(result.end, result.reason).toEqual({ cause: 'safety-stop' });
    expect(result.supervisor.stopReason).toMatchObject({
      code: 'calibration-drift',
      limit: expect.any(Number),
    });
    expect(result.reason).toMatch(
      /^Calibration drift: motion capture and the robot place the pusher 1[12]\.\d mm apart/,
    );
    const stopAt = stops.find((t) => t >= injectedAt!)!;
    expect(stopAt - injectedAt!, 's from the moved calibration to the stop').toBeLessThan(STOP_WITHIN);
  });
});
