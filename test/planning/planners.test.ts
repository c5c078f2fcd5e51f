/**
 * The planner registry builds each kind a task file names from the same parts: MPC, TAMPC, and
 * UAMPC, TAMPC's baseline that only ever takes its slowest push (n_min = n_max).
 */
import path from 'node:path';
import { type StochasticSampler, type PlannerParts } from '../../src-main/planning/planner';
import { describe, expect, it } from 'vitest';
import { initialState, type State, type Control } from '#contract/state';
import { Rng } from '../../src-main/common/rng';
import { TrajectoryCost } from '../../src-main/planning/costs/trajectory-cost';
import { MpcPlanner } from '../../src-main/planning/mpc/mpc-planner';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import {
  offeredPlanners,
  plannerKinds,
  plannerOf,
  planners,
  type PlannerKind,
} from '../../src-main/planning/planners';
import { plannerPresets, plannerSettingsSchema } from '#contract/planner-settings';
import { parseRunSpec } from '../../src-main/experiments/run-spec';
import { taskOfOptions } from '../../src-main/cli/commands/run';
import { TampcPlanner } from '../../src-main/planning/tampc/tampc-planner';
import { loadTaskFile, parseTask } from '../../src-main/planning/task-file';
import { referenceScene, repoRoot } from '../helpers/scenes';
import { kinematicRollout, kinematicStep } from './toy';

const scene = referenceScene('wafr-narrow-strip');
const g = new TaskGeometry(scene);
const { task: fromFile } = loadTaskFile(path.join(repoRoot, 'resources/tasks/wafr-l-shape.json'));
const task = {
  ...fromFile,
  planner: {
    ...fromFile.planner,
    controlDuration: 1,
    tampc: {
      ...fromFile.planner.tampc,
      candidates: 2,
      minActions: 1,
      maxActions: 4,
      samples: 4,
      restTime: 0.5,
    },
  },
};

/** Execution exactly as planned: TAMPC then has no reason to push slowly. */
const certain: StochasticSampler = (requests) =>
  Promise.resolve(requests.map((r) => kinematicStep(g.layout, r.x0, r.u as Control, r.dt)));

function parts(): PlannerParts {
  return {
    task,
    scene,
    geometry: g,
    rollout: kinematicRollout(g.layout),
    cost: new TrajectoryCost([{ term: 'goal-region', weight: 100 }], g),
    rng: new Rng(5),
    optimizer: {
      rollouts: 4,
      explorationVariance: 1e-6,
      update: { kind: 'greedy' },
      maxIterations: 0,
      costThreshold: 0,
      maxSpeed: 1,
    },
    iterationLabels: () => [0],
    sampler: () => certain,
    // Kinematic bodies stop with the pusher: a rest leaves the state as it is.
    settle: () => (x) => Promise.resolve(x),
  };
}

describe('planner registry', () => {
  it('has a planner for every kind a task file may name', () => {
    expect(Object.keys(planners).sort()).toEqual(['mpc', 'tampc', 'uampc']);
    expect(planners.mpc.create(parts())).toBeInstanceOf(MpcPlanner);
    expect(planners.tampc.create(parts())).toBeInstanceOf(TampcPlanner);
    expect(planners.uampc.create(parts())).toBeInstanceOf(TampcPlanner);
  });

  it("takes the kinds from the registry's entries: a task, a run's settings and an experiment name each", () => {
    expect(plannerKinds).toEqual(Object.keys(planners));
    for (const kind of plannerKinds) {
      expect(
        parseTask({ ...fromFile, scene: 'x.json', planner: { ...fromFile.planner, kind } }).planner.kind,
      ).toBe(kind);
      expect(
        plannerSettingsSchema.parse({ ...plannerPresets.recommended.settings, planner: kind }).planner,
      ).toBe(kind);
      expect(parseRunSpec(`fine/${kind}`).planner).toBe(kind);
      expect(plannerOf(kind)).toBe(planners[kind]);
    }
    // A kind the registry lacks is refused wherever it is named, naming the registry's kinds.
    expect(() => parseRunSpec('fine/mppi')).toThrow(
      `unknown planner "mppi" (expected ${plannerKinds.join(', ')})`,
    );
    expect(() => plannerOf('mppi')).toThrow(
      `unknown planner "mppi" (the planners: ${plannerKinds.join(', ')})`,
    );
    expect(() => taskOfOptions(fromFile, { planner: 'uampc' })).toThrow(
      `--planner: expected ${offeredPlanners()
        .map((p) => p.kind)
        .join(' or ')}, got "uampc"`,
    );
  });

  it('carries a name and description per entry; the console offers the kinds a run may name', () => {
    for (const entry of Object.values(planners)) {
      expect(entry.name.length).toBeGreaterThan(0);
      expect(entry.description.length).toBeGreaterThan(entry.name.length);
    }
    expect(offeredPlanners().map((p) => p.kind)).toEqual(plannerKinds.filter((k) => planners[k].offered));
    expect(offeredPlanners().map((p) => p.kind)).toEqual(['mpc', 'tampc']);
    expect(offeredPlanners()[0]).toEqual({
      kind: 'mpc',
      name: planners.mpc.name,
      description: planners.mpc.description,
    });
  });

  it('TAMPC takes the fast push when execution is certain; UAMPC, its baseline, only ever the slow one', async () => {
    const x: State = initialState(scene);
    const first = async (kind: PlannerKind) =>
      (await planners[kind].create(parts()).plan({ x, step: 0, uPrev: [0, 0] })).controls;
    expect(await first('tampc')).toHaveLength(1);
    const slow = await first('uampc');
    expect(slow).toHaveLength(4);
    // The same distance at a quarter of the speed.
    expect(slow[0]![0]).toBeCloseTo((await first('tampc'))[0]![0]! / 4, 9);
  });
});
