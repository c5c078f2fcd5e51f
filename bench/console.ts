/**
 * Console benchmark: an operator abort through the real console core during a dry run on the
 * in-process virtual lab, N times. Measures, from the moment the run.abort command reaches the
 * core: when the client wrote the stop (the synchronous path: core -> run controller ->
 * AbortSignal -> supervisor -> RTDE write) and when the virtual controller decoded it (the
 * target: within 10 ms). Each abort comes while the arm executes the first control.
 *
 *   npm run bench -- console [--aborts N]
 */
import path from 'node:path';
import { monotonicSeconds } from '../src-main/common/clock';
import { fileURLToPath } from 'node:url';
import type { ConsoleEvent } from '#contract/console-api';
import { plannerPresets, type PlannerSettings } from '#contract/planner-settings';
import { ConsoleCore } from '../src-main/console/console-core';
import { LabRunController } from '../src-main/console/lab-run-controller';
import { RunOwner } from '../src-main/run/run-owner';
import { VirtualLabConnection } from '../src-main/lab-link/virtual-lab-connection';
import type { InputWrite } from '../src-main/virtual-lab/virtual-ur/rtde-server';
import { CommandCode, INPUT_NAMES } from '../src-main/robot/registers';
import { machineInfo, printTable, writeResult } from './report';
import { quantileOfSorted } from '../src-main/common/quantile';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The abort's target: a stop at the controller within this, s. */
const TARGET = 0.01;

const fast: PlannerSettings = {
  ...plannerPresets['isrr2019-coarse'].settings,
  horizon: 2,
  slices: 2,
  rollouts: 4,
  maxExecutedActions: 3,
};

async function until<T>(get: () => T | undefined | false, timeout = 30): Promise<T> {
  const end = Date.now() + timeout * 1000;
  for (;;) {
    const v = get();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 2));
  }
}

export async function run(args: string[]): Promise<void> {
  const i = args.indexOf('--aborts');
  const aborts = i >= 0 ? Number(args[i + 1]) : 20;
  const session = new VirtualLabConnection({ inProcess: true });
  const controller = new LabRunController({
    virtualLab: session,
    realLab: null,
    tasksDir: path.join(root, 'resources/tasks'),
    owner: new RunOwner({ workers: 1 }),
  });
  const core = new ConsoleCore({ scenesDir: path.join(root, 'resources/scenes'), runController: controller });
  let events: ConsoleEvent[] = [];
  core.subscribe((e) => events.push(e));
  await core.handle({ type: 'scene.load', file: 'isrr-obstacle.json' });
  await core.handle({ type: 'settings.set', settings: fast });

  const written: number[] = [];
  const arrived: number[] = [];
  let skipped = 0;
  try {
    for (let n = 0; n < aborts; n++) {
      events = [];
      const started = await core.handle({ type: 'run.start', mode: 'dry' });
      if (!started.ok) throw new Error(started.error);
      const lab = session.lab()!;
      const wire: { code: number; at: number }[] = [];
      const onInput = (w: InputWrite): void => {
        const k = w.names.indexOf(INPUT_NAMES.command);
        if (k >= 0) wire.push({ code: w.values[k] as number, at: w.receivedAt });
      };
      lab.ur.rtde.on('input', onInput);
      const robot = session.current()!.robot;
      const stop = robot.stop;
      let writeAt = 0;
      robot.stop = (...a) => {
        writeAt ||= monotonicSeconds();
        return stop.apply(robot, a);
      };
      try {
        await until(() => events.some((e) => e.type === 'planner-step') || events.some(ended));
        await until(() => wire.some((c) => c.code === CommandCode.SPEED) || events.some(ended));
        if (events.some(ended)) {
          // The supervisor stopped the run before the abort (a starved event loop): not a sample.
          skipped++;
          continue;
        }
        writeAt = 0;
        const t0 = monotonicSeconds();
        void core.handle({ type: 'run.abort', source: 'escape-key' });
        const got = await until(() => wire.find((c) => c.code === CommandCode.STOP && c.at >= t0));
        // Tables in ms.
        written.push((writeAt - t0) * 1000);
        arrived.push((got.at - t0) * 1000);
      } finally {
        robot.stop = stop;
        lab.ur.rtde.off('input', onInput);
        await until(() => controller.runningWorkers() === 0);
      }
    }
  } finally {
    core.dispose();
    await controller.close();
    await session.close();
  }
  const rows = [
    { stage: 'stop written by the client', values: written },
    { stage: 'stop decoded by the virtual controller', values: arrived },
  ].map(({ stage, values }) => {
    const s = [...values].sort((a, b) => a - b);
    return {
      stage,
      aborts: s.length,
      'p50 ms': quantileOfSorted(s, 0.5),
      'p90 ms': quantileOfSorted(s, 0.9),
      'max ms': s.at(-1) ?? NaN,
      [`within ${TARGET * 1000} ms`]: `${s.filter((v) => v < TARGET * 1000).length}/${s.length}`,
    };
  });
  printTable(`Operator abort (run.abort at the core -> stop), dry runs on the virtual lab`, rows);
  if (skipped > 0) process.stdout.write(`${skipped} run(s) stopped by the supervisor before the abort\n`);
  writeResult('console', { machine: machineInfo(), target: TARGET, skipped, written, arrived, rows });
}

function ended(e: ConsoleEvent): boolean {
  return e.type === 'run' && ['aborted', 'failed', 'finished'].includes(e.status.phase);
}
