/**
 * `log export` writes tidy tables: one row per message, named columns (no column per array
 * index), and one table per list a message holds, keyed by the message (issue 17: the export had
 * 1,138 columns named `event.step.predictions[0].states[..]`).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvCell, exportCsv } from '../../src-main/session/csv-export';
import { SessionRecorder } from '../../src-main/session/recorder';
import { plannerStep, recordEveryChannel, robotState, sliderIds, stateEvent } from './sample-messages';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-csv-'));
const out = path.join(dir, 'csv');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A CSV file as header + rows of cells by column name (no quoted commas in these tables). */
function table(file: string): { header: string[]; rows: Record<string, string>[] } {
  const [head, ...lines] = readFileSync(path.join(out, file), 'utf8').trim().split('\n');
  const header = head!.split(',');
  return {
    header,
    rows: lines.map((l) => Object.fromEntries(l.split(',').map((c, i) => [header[i]!, c]))),
  };
}

const STEPS = 3;
const INJECTED = '=HYPERLINK("http://127.0.0.1/x";"click")';
const id = sliderIds[0]!;

beforeAll(async () => {
  const rec = await SessionRecorder.create({ dir, label: 'dry', origin: 'test' });
  recordEveryChannel(rec); // planner step 0
  for (let i = 1; i < STEPS; i++) rec.event({ type: 'planner-step', step: plannerStep(i, i) });
  for (let i = 0; i < 10; i++) rec.robotState(robotState(i / 500));
  rec.event(stateEvent(1));
  // A log line with text a spreadsheet would run as a formula (a device's or an operator's words).
  rec.event({ type: 'log', at: 1_700_000_001, level: 'error', source: 'robot', message: INJECTED });
  await rec.close();
  await exportCsv(rec.file, out);
});

describe('CSV export', () => {
  it('names every column: no array indices anywhere, log time first', () => {
    const files = readdirSync(out);
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const { header } = table(f);
      expect(header[0], f).toBe('log_time_ns');
      expect(
        header.filter((c) => /\[\d*\]/.test(c)),
        f,
      ).toEqual([]);
      expect(new Set(header).size, f).toBe(header.length);
    }
    // The Foxglove channels are views of the same data: not exported.
    expect(files.filter((f) => f.startsWith('foxglove'))).toEqual([]);
  });

  it('has a row per planner step with its start state, first control and timings by name', () => {
    const { header, rows } = table('planner_step.csv');
    expect(rows).toHaveLength(STEPS);
    expect(rows.map((r) => Number(r.step))).toEqual([0, 1, 2]);
    for (const c of [
      'start.pusher.x',
      'start.pusher.vy',
      `start.${id}.x`,
      `start.${id}.theta`,
      `start.${id}.omega`,
      'u.vx',
      'u.vy',
      'cost',
      'convergence.translation',
      'timings.planning',
      'timings.workers',
    ])
      expect(header).toContain(c);
    // A manageable table, not one column per predicted number.
    expect(header.length).toBeLessThan(40);
    const step = plannerStep(1, 1);
    expect(Number(rows[1]![`start.${id}.theta`])).toBeCloseTo(step.start[4]!, 12);
    expect(Number(rows[1]!['u.vx'])).toBe(step.plan[0]![0]);
    expect(Number(rows[1]!.cost)).toBe(step.costs.at(-1));
  });

  it('puts predictions, plans and costs in tables of their own, one row per item', () => {
    const step = plannerStep(0, 0);
    const predictions = table('planner_step_predictions.csv');
    expect(predictions.header.slice(0, 4)).toEqual(['log_time_ns', 'step', 'iteration', 'k']);
    expect(predictions.header).toEqual(
      expect.arrayContaining(['pusher.x', 'pusher.y', `${id}.x`, `${id}.y`, `${id}.theta`, `${id}.omega`]),
    );
    const perStep = step.predictions.reduce((n, p) => n + p.states.length, 0);
    expect(predictions.rows).toHaveLength(STEPS * perStep);
    const row = predictions.rows.find((r) => r.step === '0' && r.iteration === '2' && r.k === '3')!;
    expect(Number(row[`${id}.theta`])).toBeCloseTo(step.predictions[2]!.states[3]![4]!, 12);

    const plan = table('planner_step_plan.csv');
    expect(plan.header).toEqual(['log_time_ns', 'step', 'k', 't', 'vx', 'vy']);
    expect(plan.rows).toHaveLength(STEPS * step.plan.length);
    expect(table('planner_step_costs.csv').header).toEqual(['log_time_ns', 'step', 'iteration', 'cost']);
    expect(table('planner_step_convergence.csv').rows).toHaveLength(STEPS * step.convergence.length);
  });

  it('names robot, motion-capture and scene-state columns by field and body', () => {
    const robot = table('robot_state.csv');
    expect(robot.rows).toHaveLength(11);
    expect(robot.header).toEqual(
      expect.arrayContaining([
        'mono',
        'wall',
        'tcpPose.x',
        'tcpPose.rz',
        'tcpSpeed.vx',
        'robotStatus.powerOn',
      ]),
    );
    const scene = table('scene_state.csv');
    expect(scene.header).toEqual(
      expect.arrayContaining(['time', 'pusher.x', 'pusher.vx', `${id}.x`, `${id}.theta`, `${id}.omega`]),
    );
    expect(table('mocap_frame.csv').header).toEqual(
      expect.arrayContaining([
        'frameNumber',
        'bodies',
        'pusher.position.x',
        'box.orientation.w',
        'table.trackingValid',
      ]),
    );
    expect(table('mocap_poses.csv').header).toEqual(
      expect.arrayContaining(['pusher.pose.x', `${id}.pose.theta`]),
    );
    expect(table('run_status.csv').header).toEqual(expect.arrayContaining(['phase', 'elapsed', 'reason']));
    expect(table('console_log.csv').header).toEqual(
      expect.arrayContaining(['at', 'level', 'source', 'message']),
    );
    expect(existsSync(path.join(out, 'session_settings.csv'))).toBe(true);
  });
});

describe('CSV cells a spreadsheet would run as formulas', () => {
  it("prefixes a ' to text that starts with = + - @ tab or CR", () => {
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('+cmd')).toBe("'+cmd");
    expect(csvCell('-2+3+cmd|"/c calc"!A0')).toBe(`"'-2+3+cmd|""/c calc""!A0"`);
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\t=1')).toBe("'\t=1");
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
    expect(csvCell('goal reached')).toBe('goal reached');
  });

  it('keeps numbers (and lists of numbers) as numbers', () => {
    expect(csvCell(-0.5)).toBe('-0.5');
    expect(csvCell('-0.5')).toBe('-0.5');
    expect(csvCell('+1e-3')).toBe('+1e-3');
    expect(csvCell('-0.5; 0.25; -1')).toBe('-0.5; 0.25; -1');
    expect(csvCell(-1e-7)).toBe('-1e-7');
    expect(csvCell('-e')).toBe("'-e");
  });

  it('neutralises a formula that reached the log', () => {
    const text = readFileSync(path.join(out, 'console_log.csv'), 'utf8');
    expect(text).toContain(`"'=HYPERLINK(""http://127.0.0.1/x"";""click"")"`);
    expect(text).not.toMatch(/(^|,)"?=HYPERLINK/m);
  });
});
