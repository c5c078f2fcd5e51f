/**
 * An identification run on the virtual lab (physics-probe/): the scripted pushes run through the
 * supervised run (pre-flight, arming, the supervisor), move the object, end the run when played,
 * and the log holds the planner's prediction error of every executed control, readable by the
 * log tools' reader.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeRun } from '../../src-main/physics-probe/probe-run';
import { RunOwner } from '../../src-main/run/run-owner';
import { plannerSettingsOf, RunRecorder } from '../../src-main/run/run-recorder';
import { SessionLog } from '../../src-main/session/reader';
import type { MessageOf } from '../../src-main/session/channels';
import { labsPerTest, quickLabTask } from '../helpers/virtual-lab';

const labs = labsPerTest();

describe('an identification run', () => {
  it('pushes centred and off-centre under the supervisor, ends when played, logs each control’s prediction error', async () => {
    const { lab, link } = await labs.labAndLink();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-run-'));
    const task = quickLabTask();
    const recorder = await RunRecorder.start({
      dir,
      origin: 'headless',
      mode: 'real',
      label: 'probe',
      scene: link.scene,
      settings: plannerSettingsOf(task, link.scene, { kind: 'fine' }, 'analytical'),
    });
    const owner = new RunOwner({ workers: 1 });
    owner.begin('real', recorder);
    const start = lab.world.truePoses().get('object')!;
    let r;
    try {
      r = await probeRun({
        link,
        task,
        owner,
        pushes: [
          { offset: 0, distance: 0.03, speed: 0.05, turn: Math.PI / 2 },
          { offset: 0.025, distance: 0.03, speed: 0.05, turn: Math.PI },
        ],
      });
    } finally {
      owner.release();
      await owner.close();
      await recorder.close();
    }
    // Outcome and reason together, so a failed run shows why it ended.
    expect({ outcome: r.run.outcome, reason: r.run.reason }).toEqual({
      outcome: 'finished',
      reason: 'every scripted push done',
    });
    expect(r.done).toEqual([0, 1]);
    expect(r.skipped).toEqual([]);
    const end = lab.world.truePoses().get('object')!;
    expect(Math.hypot(end.x - start.x, end.y - start.y)).toBeGreaterThan(0.02);

    const [file] = readdirSync(dir).filter((f) => f.endsWith('.mcap'));
    const log = await SessionLog.open(path.join(dir, file!));
    const errors: MessageOf<'/planner/prediction-error'>[] = [];
    for await (const m of log.messages(['/planner/prediction-error']))
      errors.push(m.message as MessageOf<'/planner/prediction-error'>);
    const counts = new Map(log.channelCounts().map((c) => [c.topic, c.messages]));
    await log.close();
    expect(errors.map((e) => e.step)).toEqual(Array.from({ length: r.run.actions }, (_, i) => i));
    expect(counts.get('/planner/step')).toBe(r.run.actions);
    // The world is noiseless and the scene's: the fine model's predictions stay within a few mm.
    for (const e of errors) {
      expect(e.objects.map((o) => o.id)).toEqual(['object']);
      expect(e.position).toBeLessThan(0.01);
    }
  }, 120_000);
});
