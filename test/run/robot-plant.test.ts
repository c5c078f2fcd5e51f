/**
 * The robot as the MPC loop's plant: after each control it holds the arm and observes the table
 * only once the arm has stood still for a moment, so a plan never starts from a table that is
 * still moving.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { initialState } from '#contract/state';
import { toolAtRest, type RobotState } from '../../src-main/robot/robot-state';
import { RobotPlant, SETTLE_TIME } from '../../src-main/run/robot-plant';
import type { PlantSupervisor } from '../../src-main/run/robot-plant';
import { referenceScene } from '../helpers/scenes';
import { seenTable } from '../helpers/seen-table';

const scene = referenceScene('isrr-obstacle');

/** A plant on a stand-in supervisor; `armAtRest` is told when the last hold came (ms, or null before). */
function plantWith(armAtRest?: (holdAt: number | null) => boolean) {
  const events: { kind: 'command' | 'hold' | 'observe'; at: number }[] = [];
  let holdAt: number | null = null;
  // Streams as the thread's supervisor does: a command every period for the duration, then a hold.
  const supervisor = {
    state: 'running',
    stopReason: undefined,
    commandFingers: () => true,
    stream: async (_vx: number, _vy: number, _yaw: number, duration: number, period: number) => {
      const end = performance.now() + duration * 1000;
      while (performance.now() < end) {
        events.push({ kind: 'command', at: performance.now() });
        await new Promise((r) => setTimeout(r, period * 1000));
      }
      holdAt = performance.now();
      events.push({ kind: 'hold', at: holdAt });
      return true;
    },
  } as PlantSupervisor;
  const x = initialState(scene);
  const plant = new RobotPlant({
    supervisor,
    estimate: () => {
      events.push({ kind: 'observe', at: performance.now() });
      return seenTable(scene, x);
    },
    commandPeriod: 0.005,
    ...(armAtRest ? { armAtRest: () => armAtRest(holdAt) } : {}),
  });
  return { plant, events };
}

describe('robot plant', () => {
  it('observes the table after a control only once the arm has stood still', async () => {
    // The arm takes 60 ms to stop after the hold.
    const { plant, events } = plantWith((holdAt) => holdAt !== null && performance.now() - holdAt > 60);
    await plant.execute([0.05, 0], 0.05);
    const hold = events.find((e) => e.kind === 'hold')!;
    const last = events[events.length - 1]!;
    expect(last.kind).toBe('observe');
    expect(last.at - hold.at).toBeGreaterThanOrEqual(60 + SETTLE_TIME * 1000 - 5);
    // Meanwhile the table is watched for the path (an object sliding on may touch an obstacle).
    expect(events.filter((e) => e.kind === 'observe' && e.at > hold.at).length).toBeGreaterThan(5);
  });

  it('does not wait for an arm that never reports standing still, beyond half a second', async () => {
    const { plant, events } = plantWith(() => false);
    await plant.execute([0.05, 0], 0.02);
    const hold = events.find((e) => e.kind === 'hold')!;
    const wait = events[events.length - 1]!.at - hold.at;
    expect(wait).toBeGreaterThanOrEqual(490);
  });

  it('reads the arm as at rest below 1 mm/s and 0.01 rad/s of tool motion', () => {
    const state = (tcpSpeed: number[]) => ({ tcpSpeed }) as RobotState;
    expect(toolAtRest(undefined)).toBe(false);
    expect(toolAtRest(state([0.0005, 0, 0, 0, 0, 0.005]))).toBe(true);
    expect(toolAtRest(state([0.002, 0, 0, 0, 0, 0]))).toBe(false);
    expect(toolAtRest(state([0, 0, 0, 0, 0, 0.05]))).toBe(false);
  });
});
