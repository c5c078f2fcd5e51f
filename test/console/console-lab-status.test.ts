/**
 * What the console core makes of its lab from the start (issue 17): it opens on the lab's scene
 * and tells the connection source which scene the checklist should judge (the one on screen);
 * before the first run the run status's safety is the robot's own, not "unknown"; the lab view
 * is in the snapshot and published when it changes; while a run starts unarmed the robot's safety
 * still shows; once a run arms, the run's safety holds.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConsoleCore } from '../../src-main/console/console-core';
import type { ConnectionSource, LabStatus } from '../../src-main/lab-link/status-source';
import type { RunController, RunSink } from '../../src-main/console/run-controller';
import type { ConsoleEvent } from '#contract/console-api';
import type { Scene } from '#contract/scene';
import { referenceScene, repoRoot } from '../helpers/scenes';
import { sampleLab } from '../session/sample-messages';

class FakeLab implements ConnectionSource {
  status: LabStatus = { connections: [], preflight: null, lab: sampleLab, safety: 'safe' };
  scenes: (Scene | null)[] = [];
  private listener: ((s: LabStatus) => void) | null = null;
  current(): LabStatus {
    return this.status;
  }
  subscribe(listener: (s: LabStatus) => void): () => void {
    this.listener = listener;
    return () => (this.listener = null);
  }
  useScene(scene: Scene | null): void {
    this.scenes.push(scene);
  }
  change(patch: Partial<LabStatus>): void {
    this.status = { ...this.status, ...patch };
    this.listener?.(this.status);
  }
}

const scenesDir = path.join(repoRoot, 'resources/scenes');

describe('console core: the lab from the start', () => {
  it("opens on the lab's scene, with the robot's safety and the lab view in the snapshot", () => {
    const lab = new FakeLab();
    const scene = referenceScene('isrr-obstacle');
    const core = new ConsoleCore({
      scenesDir,
      connections: lab,
      scene: { scene, file: 'isrr-obstacle.json' },
    });
    const s = core.snapshot();
    expect(s.scene?.name).toBe('isrr-obstacle');
    expect(s.sceneFile).toBe('isrr-obstacle.json');
    expect(s.run).toMatchObject({ phase: 'idle', safety: 'safe' });
    expect(s.lab).toEqual(sampleLab);
    // The checklist judges the scene on screen.
    expect(lab.scenes.at(-1)?.name).toBe('isrr-obstacle');
    core.dispose();
  });

  it('follows the robot before the first run, publishes lab changes once, and hands on a new scene', async () => {
    const lab = new FakeLab();
    const core = new ConsoleCore({ scenesDir, connections: lab });
    expect(core.snapshot().scene).toBeNull();
    expect(lab.scenes).toEqual([null]);
    const events: ConsoleEvent[] = [];
    core.subscribe((e) => events.push(e));
    lab.change({ safety: 'stopped' });
    expect(core.snapshot().run.safety).toBe('stopped');
    expect(events.filter((e) => e.type === 'run')).toHaveLength(1);
    // The same lab view is not published again; a changed one is.
    expect(events.filter((e) => e.type === 'lab')).toHaveLength(0);
    lab.change({ lab: { ...sampleLab, scene: 'open-table' } });
    expect(events.filter((e) => e.type === 'lab')).toEqual([
      { type: 'lab', lab: { ...sampleLab, scene: 'open-table' } },
    ]);
    expect(await core.handle({ type: 'scene.load', file: 'isrr-obstacle.json' })).toMatchObject({ ok: true });
    expect(lab.scenes.at(-1)?.name).toBe('isrr-obstacle');
    core.dispose();
  });

  it("shows the robot's safety while a run starts unarmed, the run's once it arms (issue 45)", async () => {
    const lab = new FakeLab();
    let sink: RunSink | null = null;
    const controller: RunController = {
      start: async (_request, s) => void (sink = s),
      arm: async () => undefined,
      pause: async () => undefined,
      resume: async () => undefined,
      abort: () => undefined,
    };
    const core = new ConsoleCore({
      scenesDir,
      connections: lab,
      runController: controller,
      scene: { scene: referenceScene('isrr-obstacle'), file: 'isrr-obstacle.json' },
    });
    expect(await core.handle({ type: 'run.start', mode: 'real' })).toMatchObject({ ok: true });
    // Starting, unarmed: the robot's own safety (what the Setup view's checklist reads), not UNKNOWN.
    expect(core.snapshot().run).toMatchObject({ phase: 'starting', safety: 'safe', armed: false });
    lab.change({ safety: 'stopped' });
    expect(core.snapshot().run.safety).toBe('stopped');
    lab.change({ safety: 'safe' });
    // Armed and running: the run's supervisor speaks for the arm from now on.
    sink!.status({ event: { type: 'run-started' }, armed: true, safety: 'safe' });
    lab.change({ safety: 'unknown' });
    expect(core.snapshot().run).toMatchObject({ phase: 'running', safety: 'safe' });
    core.dispose();
  });

  it('says unknown without a lab', () => {
    const core = new ConsoleCore({ scenesDir });
    expect(core.snapshot()).toMatchObject({ lab: null, run: { safety: 'unknown' } });
    core.dispose();
  });
});
