/**
 * Fault injection in the virtual lab: nothing moves before the pre-flight checks are green and,
 * for a real run, the operator has armed; the gripper's activation and grip included (activation
 * alone is a full stroke of the fingers); an abort in the middle of a plan ends the run without
 * waiting for the plan (the second step's here, held unanswered: the first is planned before
 * arming, and an abort during it is plan-before-arming.test.ts's).
 */
import { describe, expect, it, vi } from 'vitest';
import { monotonicSeconds } from '../../src-main/common/clock';
import { type Plan } from '../../src-main/planning/planner';
import type { LabLink } from '../../src-main/lab-link/lab-link';
import { labsPerTest, quickLabTask, runOnLab, stopCommandTimes } from '../helpers/virtual-lab';

const labs = labsPerTest();

/** Told when the run's second plan starts; that plan then never answers (a plan that takes forever). */
const second = vi.hoisted(() => ({ started: undefined as (() => void) | undefined }));

vi.mock('../../src-main/planning/task-run', async (importOriginal) =>
  (await import('../helpers/watched-planner')).withPlanHook(await importOriginal(), (ctx, plan) => {
    if (ctx.step !== 1 || !second.started) return plan(ctx);
    second.started();
    // The planner works on (its predictions on the workers), but its answer never comes: a
    // run that waited for it would not end.
    plan(ctx).catch(() => undefined);
    return new Promise<Plan>(() => undefined);
  }),
);

/** Records every gripper command that moves the fingers, in `order`, as it is sent. */
function watchGripper(link: LabLink, order: string[]): void {
  const g = link.gripper;
  const wrap = <K extends 'activate' | 'closeOnPusher' | 'openFully' | 'move'>(name: K): void => {
    const original = g[name].bind(g) as (...a: unknown[]) => Promise<unknown>;
    (g as unknown as Record<K, (...a: unknown[]) => Promise<unknown>>)[name] = (...a) => {
      order.push(`gripper ${name}`);
      return original(...a);
    };
  };
  wrap('activate');
  wrap('closeOnPusher');
  wrap('openFully');
  wrap('move');
}

describe('start order in the virtual lab', () => {
  it('leaves the gripper alone when a pre-flight check is red', async () => {
    const env = await labs.labAndLink();
    const order: string[] = [];
    watchGripper(env.link, order);
    // The object's markers are lost: the motion-capture check is red.
    env.lab.natnet.setFaults({ lostTracking: ['object'] });
    const result = await runOnLab(env, quickLabTask(), {
      onPreflight: (r) => order.push(`preflight ${r.ok ? 'green' : 'red'}`),
    });
    expect(result.end).toEqual({ cause: 'not-armed' });
    expect(result.reason).toMatch(/Motion capture fresh/);
    expect(order).toEqual(['preflight red']);
  });

  it('grips the pusher only after the checks are green and the operator armed a real run', async () => {
    const env = await labs.labAndLink();
    const order: string[] = [];
    watchGripper(env.link, order);
    const result = await runOnLab(env, quickLabTask(1), {
      onPreflight: (r) => order.push(`preflight ${r.ok ? 'green' : 'red'}`),
      confirmArm: async () => {
        order.push('operator armed');
      },
      onDecision: (d) => {
        if (d.kind === 'armed') order.push('supervisor armed');
      },
    });
    expect(result.preflight.ok).toBe(true);
    // Checks of everything but the gripper, the operator's arm, the grip, every check again, armed.
    expect(order).toEqual([
      'preflight green',
      'operator armed',
      // A fresh lab's gripper is not activated yet: activation is a full stroke, so it waits too.
      'gripper activate',
      'gripper closeOnPusher',
      'preflight green',
      'supervisor armed',
    ]);
    // The checks the operator armed on did not yet judge the gripper; the last ones did.
    expect(result.preflight.checks.map((c) => c.id)).toContain('pusher-held');
  });

  it('ends the run soon after an abort in the middle of a plan, without waiting for it', async () => {
    const env = await labs.labAndLink();
    const abort = new AbortController();
    const stops = stopCommandTimes(env.lab.ur);
    let abortedAt = 0;
    let planning = false;
    second.started = () => {
      planning = true;
      setTimeout(() => {
        abortedAt = monotonicSeconds();
        abort.abort();
      }, 50);
    };
    // Short controls: the goal is more than one control away, so there is a second plan.
    const base = quickLabTask();
    const task = { ...base, planner: { ...base.planner, controlDuration: 0.25 } };
    const result = await runOnLab(env, task, { signal: abort.signal });
    const took = monotonicSeconds() - abortedAt;
    expect(planning, 'the abort came while the second plan was being made').toBe(true);
    expect(result.outcome).toBe('aborted');
    expect(result.actions).toBe(1);
    expect(result.supervisor.stopReason).toEqual({ code: 'operator-abort' });
    // The arm is told to stop on the abort's call stack: a STOP at the controller within 10 ms on an
    // idle machine (supervised-run.test.ts measures the p99), with the same load slack as above.
    const stopAt = stops.find((t) => t >= abortedAt);
    expect(stopAt, 'a stop reached the controller').toBeDefined();
    expect(stopAt! - abortedAt, 's from the abort to the stop at the controller').toBeLessThan(0.01 + 0.04);
    // 200 ms on an idle machine; generous for a loaded one (waiting for the plan would never end).
    expect(took, 's from the abort to the end of the run').toBeLessThan(1);
  });
});
