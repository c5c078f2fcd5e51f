/**
 * `physics check` on logs with a known truth: a world that is the model (the error stays at the
 * noise floor of the observed poses) against a world that is heavier, grippier and slicker (the
 * error grows); and a clear error, never a crash, for a log with a truncated tail, one without
 * robot states, one of another scene.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { physicsCheck } from '../../src-main/lab-physics/check';
import { checkSvg, checkTable } from '../../src-main/lab-physics/check-report';
import { PhysicsLogError, readLoggedPushes } from '../../src-main/lab-physics/executed-pushes';
import { inProcessReplay, PIECE, predictionErrorOfStep } from '../../src-main/lab-physics/prediction-error';
import { FineModel } from '#physics/fine-model';
import { stateVector } from '../../src-main/session/named-state';
import { observedEnd, observedStart } from '../../src-main/lab-physics/executed-pushes';
import { sessionLogBytes } from '../session/damaged-logs';
import { openTableScene } from '../helpers/scenes';
import { cli } from '../helpers/cli';
import { boxScene, PROBE_CONTROLS, scaledPhysics, simulatedLabLog } from './simulated-lab-log';

vi.setConfig({ testTimeout: 120_000 });

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-physics-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const model = boxScene();
/** A world far from the model: heavier, three times grippier, half as slick a table. */
const differentWorld = scaledPhysics(model, { mass: 1.6, friction: 3, table: 0.5 });
let matching: string;
let differing: string;
const replay = inProcessReplay();
afterAll(() => replay.dispose());

beforeAll(async () => {
  const noise = 0.0003;
  matching = await simulatedLabLog({
    dir: path.join(dir, 'matching'),
    world: model,
    model,
    controls: PROBE_CONTROLS,
    noise,
  });
  differing = await simulatedLabLog({
    dir: path.join(dir, 'differing'),
    world: differentWorld,
    model,
    controls: PROBE_CONTROLS,
    noise,
    latency: 0.01,
  });
});

describe('physics check', () => {
  it('reads every executed control with the robot motion turned onto the table', async () => {
    const run = await readLoggedPushes(matching);
    expect(run.pushes).toHaveLength(PROBE_CONTROLS.length);
    run.pushes.forEach((p, i) => {
      // The robot base is turned 30 deg on the table: its commands come back in the table frame.
      expect(p.command.vx).toBeCloseTo(PROBE_CONTROLS[i]![0], 9);
      expect(p.command.vy).toBeCloseTo(PROBE_CONTROLS[i]![1], 9);
      // The robot's motion over the control is the commanded displacement (ramps included).
      const moved = p.pieces.reduce((s, [vx]) => s + vx * PIECE, 0);
      expect(moved).toBeCloseTo(PROBE_CONTROLS[i]![0] * 1, 3);
      expect(p.predictedEnd).not.toBeNull();
    });
  });

  it('stays at the noise floor where the world is the model, and grows where it is not', async () => {
    const report = await physicsCheck(replay, [await readLoggedPushes(matching)], { model: null });
    const worse = await physicsCheck(replay, [await readLoggedPushes(differing)], { model: null });
    // 0.3 mm of noise on each observed position: a difference of two is about 0.5 mm.
    expect(report.modelAll.position.p50).toBeLessThan(0.001);
    expect(report.modelAll.yaw.p50).toBeLessThan((1 * Math.PI) / 180);
    expect(worse.modelAll.position.p50).toBeGreaterThan(2 * report.modelAll.position.p50);
    expect(report.runs[0]!.steps).toHaveLength(PROBE_CONTROLS.length);
    expect(report.plannerAll).not.toBeNull();
    expect(checkTable(report)).toContain('**all runs**');
    expect(checkSvg(report)).toContain('<svg');
  });

  it('gives the same error one step at a time as the batch check (the live form)', async () => {
    const run = await readLoggedPushes(differing);
    const fine = await FineModel.create(run.scene);
    const batch = await physicsCheck(replay, [run], { model: null });
    const p = run.pushes[2]!;
    const one = predictionErrorOfStep(
      fine,
      run.scene.sliders.map((s) => s.id),
      {
        start: observedStart(run, 2, 0),
        pieces: p.pieces,
        end: observedEnd(run, 2, 0),
        predictedEnd: p.predictedEnd ? stateVector(p.predictedEnd) : null,
      },
    );
    fine.dispose();
    expect(one.model).toEqual(batch.runs[0]!.steps[2]!.model);
    expect(one.planner).toEqual(batch.runs[0]!.steps[2]!.planner);
  });

  it('names what is missing in a log with a truncated tail, without robot states, or of another scene', async () => {
    const { live } = await sessionLogBytes(path.join(dir, 'damaged'), 20);
    const truncated = path.join(dir, 'truncated.mcap');
    writeFileSync(truncated, live);
    await expect(readLoggedPushes(truncated)).rejects.toThrow(/log recover/);

    const noRobot = await simulatedLabLog({
      dir: path.join(dir, 'no-robot'),
      world: model,
      model,
      controls: PROBE_CONTROLS.slice(0, 1),
      withoutRobotState: true,
    });
    await expect(readLoggedPushes(noRobot)).rejects.toThrow(/no \/robot\/state messages/);

    const cut = await simulatedLabLog({
      dir: path.join(dir, 'cut'),
      world: model,
      model,
      controls: PROBE_CONTROLS.slice(0, 1),
      cutLastControlAt: 0.5,
    });
    await expect(readLoggedPushes(cut)).rejects.toThrow(/no executed control ends in the log/);

    const other = openTableScene(1);
    await expect(
      physicsCheck(replay, [await readLoggedPushes(matching)], {
        model: { scene: other, file: 'other.json' },
      }),
    ).rejects.toThrow(PhysicsLogError);
    await expect(
      physicsCheck(replay, [await readLoggedPushes(matching)], {
        model: { scene: other, file: 'other.json' },
      }),
    ).rejects.toThrow(/recorded on scene "physics-fit-box" with objects target \(box\); other.json/);
  });

  it('prints a table, JSON and a plot from the command line, and exits 2 naming a bad log', async () => {
    const plot = path.join(dir, 'check.svg');
    const json = await cli('physics', 'check', matching, differing, '--json', '--plot', plot);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as { runs: unknown[]; modelAll: { count: number } };
    expect(report.runs).toHaveLength(2);
    expect(report.modelAll.count).toBe(2 * PROBE_CONTROLS.length);
    const truncated = path.join(dir, 'truncated.mcap');
    const bad = await cli('physics', 'check', matching, truncated);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/truncated\.mcap.*log recover/s);
    expect(bad.stderr).not.toMatch(/\n {4}at /);
  });
});
