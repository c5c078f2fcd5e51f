import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionRecorder } from '../../src-main/session/recorder';
import { repoRoot } from '../helpers/scenes';
import {
  mocapStats,
  recordEveryChannel,
  robotState,
  sampleModelChoice,
  samplePredictionError,
} from './sample-messages';

const run = promisify(execFile);
const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-logcli-'));
let complete = '';
let cut = '';

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [path.join(repoRoot, 'bin/parapush.mjs'), 'log', ...args]);
    return { code: 0, ...r };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  const a = await SessionRecorder.create({ dir, label: 'dry', origin: 'test' });
  recordEveryChannel(a);
  for (let i = 0; i < 50; i++) a.robotState(robotState(i / 500));
  // The stream's counters at the run's end: 2 s of frames, 30 of them replayed.
  a.mocapStats({ ...mocapStats, frames: mocapStats.frames + 240, olderFrames: mocapStats.olderFrames + 30 });
  await a.close();
  complete = a.file;
  // A log cut short: the live file as it is on the disk mid-run, with no process holding it.
  const b = await SessionRecorder.create({ dir, label: 'live', origin: 'test' });
  recordEveryChannel(b);
  await new Promise((r) => setTimeout(r, 600));
  cut = path.join(dir, 'cut-short.mcap');
  copyFileSync(b.file, cut);
  await b.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parapush log', () => {
  it('info --json: duration, channels, message counts, outcome', async () => {
    const r = await cli('info', complete, '--json');
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout);
    expect(info).toMatchObject({ outcome: 'success', mode: 'dry', origin: 'test', recovered: false });
    expect(info).toMatchObject({ model: 'auto: fine, 2 workers', prediction: sampleModelChoice });
    expect(info.channels).toContainEqual({ topic: '/robot/state', messages: 51 });
    expect(info.channels).toContainEqual({ topic: '/run/status', messages: 2 });
    expect(info.duration).toBeGreaterThanOrEqual(0);
    expect(info.mocap).toEqual({
      frames: 240,
      droppedFrames: 0,
      olderFrames: 30,
      repeatedFrames: 0,
      restarts: 0,
      decodeErrors: 0,
      foreignPackets: 0,
      unconfirmedFrames: 0,
      spoofSigns: 0,
    });
  });

  it('info in words', async () => {
    const r = await cli('info', complete);
    expect(r.stdout).toMatch(/outcome: +success/);
    expect(r.stdout).toMatch(/origin: +test/);
    // What auto chose, and why (the run's /run/model record).
    expect(r.stdout).toMatch(
      /\nmodel: +auto: fine, 2 workers\n +chosen by auto: fine model \(32 sequences fill 2 worker\(s\);/,
    );
    expect(r.stdout).toMatch(
      /duration: +\d+\.\d{3} s \(first to last message, wall clock; not the task time\)/,
    );
    expect(r.stdout).toMatch(/\/robot\/state +51 messages/);
    expect(r.stdout).toMatch(
      /mocap: +240 frames, 0 dropped, 30 out of order, 0 repeated, 0 restart\(s\), 0 bad packet\(s\)/,
    );
  });

  it('export writes a tidy CSV table per channel with named columns', async () => {
    const out = path.join(dir, 'csv');
    const r = await cli('export', complete, '--out', out);
    expect(r.code).toBe(0);
    const lines = readFileSync(path.join(out, 'robot_state.csv'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(52);
    const header = lines[0]!.split(',');
    expect(header.slice(0, 3)).toEqual(['log_time_ns', 'mono', 'wall']);
    expect(header).toContain('tcpPose.rz');
    expect(header.filter((c) => c.includes('['))).toEqual([]);
    const last = lines[51]!.split(',');
    expect(Number(last[header.indexOf('timestamp')])).toBeCloseTo(49 / 500, 9);
    expect(existsSync(path.join(out, 'planner_step.csv'))).toBe(true);
  });

  it("the planner's prediction error: counted by info, one CSV row per step with a column pair per object", async () => {
    const info = JSON.parse((await cli('info', complete, '--json')).stdout);
    expect(info.channels).toContainEqual({ topic: '/planner/prediction-error', messages: 1 });
    const out = path.join(dir, 'csv-prediction');
    expect((await cli('export', complete, '--out', out)).code).toBe(0);
    const [head, row, ...rest] = readFileSync(path.join(out, 'planner_prediction_error.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(rest).toEqual([]);
    const header = head!.split(',');
    const cells = row!.split(',');
    const cell = (name: string): number => Number(cells[header.indexOf(name)]);
    const id = samplePredictionError.objects[0]!.id;
    expect(cell('step')).toBe(0);
    expect(cell('position')).toBeCloseTo(0.004, 12);
    expect(cell(`${id}.position`)).toBeCloseTo(0.004, 12);
    expect(cell(`${id}.yaw`)).toBeCloseTo(0.035, 12);
  });

  it('recover makes a cut-short log readable, and info explains before', async () => {
    const before = await cli('info', cut);
    expect(before.code).toBe(2);
    expect(before.stderr).toMatch(/cut short.*parapush log recover/);
    const r = await cli('recover', cut);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/recovered \d+ messages/);
    const info = JSON.parse((await cli('info', cut, '--json')).stdout);
    expect(info).toMatchObject({ recovered: true, outcome: 'success' });
  });

  it('empty and foreign files: a clear message and exit code 2', async () => {
    const empty = path.join(dir, 'empty.mcap');
    writeFileSync(empty, '');
    const r = await cli('info', empty);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^parapush: .*empty file/);
    const missing = await cli('info', path.join(dir, 'nope.mcap'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no such file/);
  });
});
