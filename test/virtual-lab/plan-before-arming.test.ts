/**
 * The first step planned before arming (supervised-run.ts, mpc-loop.ts planFirstStep), on the
 * virtual lab: the plan is begun during pre-flight, the arm is armed with it made and its first
 * command follows without another plan; an abort or a failure while it is being made ends the run
 * unarmed with nothing moved; a table moved after it was begun makes the first step plan afresh.
 * The run's planner is the task's own, its plan() calls watched (and, where a test says so, their
 * answer held back, as a slow plan would be) by wrapping createTaskRun.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type PlanContext } from '../../src-main/planning/planner';
import type { PlannerStep } from '#contract/planner-events';
import type { Decision } from '../../src-main/safety/supervisor';
import { CommandCode, INPUT_NAMES } from '../../src-main/robot/registers';
import type { InputWrite } from '../../src-main/virtual-lab/virtual-ur/rtde-server';
import { labsPerTest, quickLabTask, runOnLab, type LabAndLink } from '../helpers/virtual-lab';

/** What the run's planner was asked, in order, beside the lab's events. */
const watch = vi.hoisted(() => ({
  log: [] as string[],
  contexts: [] as PlanContext[],
  /** Awaited before a plan's answer is given; the plan itself is the planner's own. */
  hold: undefined as (() => Promise<void>) | undefined,
}));

vi.mock('../../src-main/planning/task-run', async (importOriginal) =>
  (await import('../helpers/watched-planner')).withPlanHook(await importOriginal(), async (ctx, plan) => {
    watch.log.push(`plan ${ctx.step}`);
    watch.contexts.push(ctx);
    const made = await plan(ctx);
    await watch.hold?.();
    watch.log.push(`planned ${ctx.step}`);
    return made;
  }),
);

const task = quickLabTask(2);
const labs = labsPerTest();

afterEach(() => {
  watch.log.length = 0;
  watch.contexts.length = 0;
  watch.hold = undefined;
});

/** Logs the arm's decisions and the first motion command the virtual controller receives. */
function watchLab(env: LabAndLink): { onDecision(d: Decision): void; twists: InputWrite[] } {
  const twists: InputWrite[] = [];
  env.lab.ur.rtde.on('input', (w) => {
    const at = (name: string): unknown => w.values[w.names.indexOf(name)];
    const moving =
      at(INPUT_NAMES.command) === CommandCode.SPEED && (at(INPUT_NAMES.vx) !== 0 || at(INPUT_NAMES.vy) !== 0);
    if (!moving) return;
    if (twists.length === 0) watch.log.push('first push');
    twists.push(w);
  });
  return {
    onDecision: (d) => {
      if (d.kind === 'armed') watch.log.push('armed');
    },
    twists,
  };
}

describe('the first step planned before arming', () => {
  it('arms with the first plan made, and pushes without planning again', async () => {
    const env = await labs.labAndLink();
    const lab = watchLab(env);
    const steps: PlannerStep[] = [];
    const result = await runOnLab(env, task, { onDecision: lab.onDecision, onStep: (s) => steps.push(s) });
    expect(result.end.cause, result.reason).toBe('task');
    const upToPush = watch.log.slice(0, watch.log.indexOf('first push') + 1);
    expect(upToPush).toEqual(['plan 0', 'planned 0', 'armed', 'first push']);
    expect(steps[0]).toMatchObject({ step: 0, beforeArming: true, replan: { replanned: false } });
    // Only the first step was planned ahead.
    for (const s of steps.slice(1)) expect(s).not.toHaveProperty('beforeArming');
  });

  it('ends the run unarmed, nothing moved, when aborted while the first plan is being made', async () => {
    const env = await labs.labAndLink();
    const lab = watchLab(env);
    const operator = new AbortController();
    let released!: () => void;
    watch.hold = () => {
      // The plan is made but not yet answered: the operator aborts now.
      operator.abort();
      return new Promise<void>((r) => (released = r));
    };
    const result = await runOnLab(env, task, { onDecision: lab.onDecision, signal: operator.signal });
    expect(result.end).toEqual({ cause: 'operator-abort' });
    expect(result.outcome).toBe('aborted');
    expect(result.actions).toBe(0);
    expect(lab.twists).toHaveLength(0);
    expect(watch.log).toEqual(['plan 0']);
    // The plan was given up with the run: its signal says so.
    expect(watch.contexts[0]!.signal?.aborted).toBe(true);
    // Its late answer goes nowhere (no unhandled rejection, no step).
    released();
  });

  it('fails the run unarmed, nothing moved, when the first plan fails', async () => {
    const env = await labs.labAndLink();
    const lab = watchLab(env);
    watch.hold = () => Promise.reject(new Error('planner crashed'));
    await expect(runOnLab(env, task, { onDecision: lab.onDecision })).rejects.toThrow('planner crashed');
    expect(lab.twists).toHaveLength(0);
    expect(watch.log).not.toContain('armed');
  });

  it('refuses to arm on red checks whatever the plan made meanwhile: nothing moves', async () => {
    const env = await labs.labAndLink();
    env.lab.gripper.dropPusher();
    const lab = watchLab(env);
    const result = await runOnLab(env, task, { onDecision: lab.onDecision });
    expect(result.end).toEqual({ cause: 'not-armed' });
    expect(result.outcome).toBe('failed');
    expect(result.reason).toMatch(/Pusher held/);
    expect(watch.log).toEqual(['plan 0', 'planned 0']);
    expect(lab.twists).toHaveLength(0);
  });

  it('plans the first step afresh when the object was moved after the plan was begun', async () => {
    const env = await labs.labAndLink();
    const lab = watchLab(env);
    const steps: PlannerStep[] = [];
    const world = env.lab.world;
    const start = world.layout.sliderPose(world.snapshot(), 0);
    const moved = { ...start, y: start.y + 0.02 };
    const result = await runOnLab(env, task, {
      onDecision: lab.onDecision,
      onStep: (s) => steps.push(s),
      // A real run's arm step: the operator's hand moves the object while confirming.
      confirmArm: async () => {
        watch.log.push('confirm');
        world.placeSlider(0, moved);
        // Motion capture reports it a frame or two later; the run reads the table after arming.
        await new Promise((r) => setTimeout(r, 100));
      },
    });
    expect(result.end.cause, result.reason).toBe('task');
    const upToPush = watch.log.slice(0, watch.log.indexOf('first push') + 1);
    // Safety: nothing is armed or moves before the operator confirms.
    expect(upToPush).toEqual([
      'plan 0',
      'confirm',
      'planned 0',
      'armed',
      'plan 0',
      'planned 0',
      'first push',
    ]);
    expect(steps[0]).toMatchObject({ step: 0, beforeArming: false, replan: { replanned: true } });
    expect(steps[0]!.replan!.divergence.translation).toBeGreaterThan(0.015);
    // The plan sent starts where the object now is, not where it was.
    const planned = world.layout.sliderPose(Float64Array.from(steps[0]!.start), 0);
    expect(planned.y).toBeCloseTo(moved.y, 3);
  });
});
