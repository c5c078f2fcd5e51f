/**
 * `npm run bench -- robot [--seconds S] [--aborts N]`: the robot link against the virtual UR
 * controller on loopback.
 *
 * - Command-loop jitter at 125 Hz (CB3) and 500 Hz (e-Series): a loop driven by RTDE state
 *   packages sends one twist per package, as the supervisor's command loop does; we record the
 *   interval between consecutive sends and how far it strays from the nominal period.
 * - Abort latency: time from `stop()` to the stop command decoded by the controller (the wire plus
 *   both ends' socket handling), over N aborts issued while the arm moves.
 */
import { VirtualUr } from '../src-main/virtual-lab/virtual-ur';
import { CommandCode, INPUT_NAMES } from '../src-main/robot/registers';
import { Ur5Connection } from '../src-main/robot/ur5-connection';
import { printTable, writeResult, type Row } from './report';
import { monotonicSeconds } from '../src-main/common/clock';
import { quantileOfSorted } from '../src-main/common/quantile';

const EPHEMERAL = { rtde: 0, dashboard: 0, secondary: 0, realtime: 0 };

function summary(xs: number[]): { n: number; p50: number; p99: number; max: number; mean: number } {
  const s = [...xs].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: quantileOfSorted(s, 0.5),
    p99: quantileOfSorted(s, 0.99),
    max: s.at(-1) ?? Number.NaN,
    mean: s.reduce((a, b) => a + b, 0) / s.length,
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function withLab<T>(
  frequency: 125 | 500,
  body: (ur: VirtualUr, c: Ur5Connection) => Promise<T>,
): Promise<T> {
  const ur = await VirtualUr.start({ ports: EPHEMERAL, frequency });
  const c = await Ur5Connection.connect({
    host: '127.0.0.1',
    rtdePort: ur.ports.rtde,
    scriptPort: ur.ports.secondary,
  });
  try {
    await c.waitForState((s) => s.program.state === 'ARMED', 3);
    return await body(ur, c);
  } finally {
    await c.disconnect();
    await ur.stop();
  }
}

async function jitter(frequency: 125 | 500, seconds: number): Promise<Row> {
  return withLab(frequency, async (ur, c) => {
    const period = 1000 / frequency;
    const intervals: number[] = [];
    const acks: number[] = [];
    let last: number | undefined;
    let sent = 0;
    const sentAt = new Map<number, number>();
    const onState = (s: { program: { ackSequence: number } }): void => {
      const now = performance.now();
      const ackedAt = sentAt.get(s.program.ackSequence);
      if (ackedAt !== undefined) {
        acks.push(now - ackedAt);
        sentAt.delete(s.program.ackSequence);
      }
      if (last !== undefined) intervals.push(now - last);
      last = now;
      // A slow circle of 2 cm/s keeps the arm near where it started.
      const phase = (2 * Math.PI * sent) / (4 * frequency);
      const seq = c.sendTwist(0.02 * Math.cos(phase), 0.02 * Math.sin(phase), 1);
      sentAt.set(seq, now);
      sent += 1;
    };
    c.on('state', onState);
    await sleep(seconds * 1000);
    c.off('state', onState);
    c.stop();
    const deviation = summary(intervals.map((x) => Math.abs(x - period)));
    const ack = summary(acks);
    return {
      loop: `${frequency} Hz`,
      commands: sent,
      'rate Hz': +(sent / seconds).toFixed(1),
      'jitter p50 ms': deviation.p50,
      'jitter p99 ms': deviation.p99,
      'jitter max ms': deviation.max,
      'ack p50 ms': ack.p50,
      'ack p99 ms': ack.p99,
      'controller cycles': Math.round(ur.controller.time * frequency),
    };
  });
}

async function abortLatency(aborts: number): Promise<{ row: Row; samples: number[] }> {
  return withLab(500, async (ur, c) => {
    const samples: number[] = [];
    for (let i = 0; i < aborts; i++) {
      // Move for a few cycles, then abort.
      for (let k = 0; k < 5; k++) {
        c.sendTwist(0.02 * (i % 2 === 0 ? 1 : -1), 0, 1);
        await sleep(4);
      }
      const arrived = new Promise<number>((resolve) => {
        const onInput = (w: { names: readonly string[]; values: unknown[]; receivedAt: number }): void => {
          if (w.values[w.names.indexOf(INPUT_NAMES.command)] !== CommandCode.STOP) return;
          ur.rtde.off('input', onInput);
          resolve(w.receivedAt);
        };
        ur.rtde.on('input', onInput);
      });
      const t0 = monotonicSeconds();
      c.stop(1.5);
      samples.push(((await arrived) - t0) * 1000);
      await sleep(10);
    }
    const s = summary(samples);
    return {
      row: { aborts: s.n, 'p50 ms': s.p50, 'p99 ms': s.p99, 'max ms': s.max, 'mean ms': s.mean },
      samples,
    };
  });
}

export async function run(args: string[]): Promise<void> {
  const arg = (name: string, fallback: number): number => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const seconds = arg('--seconds', 5);
  const aborts = arg('--aborts', 200);
  const loops = [await jitter(125, seconds), await jitter(500, seconds)];
  printTable(
    `Command loop driven by RTDE state (${seconds} s each): |interval - period|, and send -> program ack`,
    loops,
  );
  const abort = await abortLatency(aborts);
  printTable('Abort latency: stop() -> stop command decoded by the controller', [abort.row]);
  writeResult('robot', {
    seconds,
    loops,
    abort: abort.row,
    abortSamples: abort.samples.map((ms) => ms / 1000),
  });
}
