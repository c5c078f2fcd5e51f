/**
 * The UR5's state in the console between runs (issue 45, finding 1): "UR5: error" once flashed
 * while robot states arrived on time. The cause: the connection source judged the last robot state
 * by its age as read on the console's own thread, and that age grows with how long this thread
 * was busy (states wait in its queue meanwhile), not with the robot's silence. The robot's silence
 * is judged where its states arrive, in the safety thread (its RTDE link is lost after 250 ms
 * without a state); the status follows that. Here the console's thread is kept busy for 200 ms
 * (the virtual lab runs on it too, so its robot pauses with it: less than the 250 ms after which
 * the safety thread calls the link lost), then read at once: the last state applied is older than
 * 100 ms, and the UR5 is still connected, its safety the checklist's.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSceneFile } from '../../src-main/common/config-files';
import { LabStatusSource } from '../../src-main/lab-link/lab-status';
import { VirtualLabConnection } from '../../src-main/lab-link/virtual-lab-connection';
import { monotonicSeconds } from '../../src-main/common/clock';
import { repoRoot } from '../helpers/scenes';

const scene = loadSceneFile(path.join(repoRoot, 'test/fixtures/lab-short-scene.json'));

describe('the UR5 between runs, read by a busy console thread', () => {
  const session = new VirtualLabConnection({ inProcess: true });
  let status: LabStatusSource;

  beforeAll(async () => {
    const link = await session.linkFor(scene);
    await link.robot.waitForState((r) => r.safetyMode === 'NORMAL', 10);
    status = new LabStatusSource(
      {
        currentConnection: () => session,
        runningWorkers: () => 0,
        workersStarted: () => false,
        workers: 1,
        onChange: () => () => undefined,
      },
      60,
    );
  }, 60_000);

  afterAll(async () => {
    status?.dispose();
    await session.close();
  });

  it('stays connected, its safety that of the checklist, though the last state applied is old', () => {
    const link = session.current()!;
    const end = performance.now() + 200;
    while (performance.now() < end) {
      // Busy, as this thread is closing a run's log: the states wait in its queue.
    }
    const age = monotonicSeconds() - link.robot.latest!.receivedAt;
    expect(age, 'the last state applied is older than the supervisor limit').toBeGreaterThan(0.1);
    const s = status.current();
    expect(s.connections.find((c) => c.id === 'ur5')).toMatchObject({
      state: 'connected',
      detail: expect.stringMatching(/^robot \w+, safety NORMAL, program /),
    });
    expect(s.safety).toBe('safe');
    expect(s.preflight?.checks.find((c) => c.id === 'safety-mode')).toMatchObject({ ok: true });
  });
});
