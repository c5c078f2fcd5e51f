/**
 * `npm run bench -- logs [seconds]`: what session logging costs the control loop. The lab's
 * streams (500 Hz robot state, 120 Hz motion capture frame + poses + scene state, 1 Hz planner
 * steps) run for the given time (default 10 s) twice: without a recorder (baseline) and with one.
 * The difference in process CPU time (all threads, so the asynchronous writes and fdatasync
 * count) over wall time is the recorder's share of one core; the goal is 2% or less.
 * Also: log size per minute, finalize (indexing) time, and the cost of one record() call.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SessionRecorder } from '../src-main/session/recorder';
import { labRates, startLabStream } from '../test/session/lab-stream';
import { robotState, sampleScene, sampleSettings } from '../test/session/sample-messages';
import { machineInfo, printTable, writeResult } from './report';

async function measure(seconds: number, recorder: SessionRecorder | null) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const stream = startLabStream(recorder);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const counts = stream.stop();
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / 1e6, counts };
}

export async function run(args: string[]): Promise<void> {
  const seconds = Number(args[0] ?? 10);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-bench-logs-'));
  try {
    // Warm up the JIT on both paths before measuring.
    const warm = await SessionRecorder.create({ dir, label: 'warmup', origin: 'bench' });
    await measure(1, warm);
    await warm.close();

    const baseline = await measure(seconds, null);
    const recorder = await SessionRecorder.create({ dir, label: 'bench', origin: 'bench' });
    recorder.settings('dry', sampleScene, sampleSettings);
    const recorded = await measure(seconds, recorder);
    const f0 = performance.now();
    const summary = await recorder.close();
    const finalizeTime = (performance.now() - f0) / 1000;
    const bytes = statSync(recorder.file).size;

    // The synchronous part the control loop itself pays: one robot-state record() call.
    const micro = await SessionRecorder.create({ dir, label: 'micro', origin: 'bench' });
    const s = robotState(1);
    const n = 20_000;
    const m0 = performance.now();
    for (let i = 0; i < n; i++) micro.robotState(s);
    const perCallUs = ((performance.now() - m0) * 1000) / n;
    await micro.close();

    const basePct = (baseline.cpu / baseline.wall) * 100;
    const recPct = (recorded.cpu / recorded.wall) * 100;
    const overheadPct = recPct - basePct;
    const messages = Object.values(summary.messageCounts).reduce((a, b) => a + b, 0);
    const rows = [
      {
        case: 'baseline (no recorder)',
        'wall s': baseline.wall,
        'cpu s': baseline.cpu,
        '% of a core': basePct,
        messages: 0,
      },
      {
        case: 'recording',
        'wall s': recorded.wall,
        'cpu s': recorded.cpu,
        '% of a core': recPct,
        messages,
      },
    ];
    printTable(
      `Session logging overhead: ${labRates.robotHz} Hz robot state + ${labRates.mocapHz} Hz motion capture`,
      rows,
    );
    const result = {
      'recorder overhead, % of a core (goal <= 2)': overheadPct,
      'record() call, us': perCallUs,
      'log size, MB per minute': (bytes / 1e6 / summary.duration) * 60,
      'finalize (index) time, s': finalizeTime,
      'messages per second': messages / summary.duration,
    };
    printTable(
      'Session log',
      Object.entries(result).map(([k, v]) => ({ measure: k, value: v })),
    );
    writeResult('logs', { machine: machineInfo(), seconds, rates: labRates, rows, result });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
