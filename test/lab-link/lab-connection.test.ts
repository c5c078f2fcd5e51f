/** The console's lab connection: one link at a time, reused for the same scene, replaced for another. */
import { describe, expect, it } from 'vitest';
import { LabConnection, type OpenedLab } from '../../src-main/lab-link/lab-connection';
import type { LabLink } from '../../src-main/lab-link/lab-link';
import { referenceScene } from '../helpers/scenes';

function fakeLab() {
  const log: string[] = [];
  let n = 0;
  const session = new LabConnection('virtual', 'test lab', async (scene): Promise<OpenedLab> => {
    const id = ++n;
    log.push(`open ${id} ${scene.name}`);
    await new Promise((r) => setTimeout(r, 5));
    return {
      link: { id } as unknown as LabLink,
      close: async () => void log.push(`close ${id}`),
    };
  });
  return { session, log };
}

describe('LabConnection', () => {
  it('reuses the link for the same scene and replaces it (closing the old) for another', async () => {
    const { session, log } = fakeLab();
    let changes = 0;
    session.onChange(() => changes++);
    const a = referenceScene('isrr-obstacle');
    const first = await session.linkFor(a);
    expect(await session.linkFor(structuredClone(a))).toBe(first);
    const second = await session.linkFor(referenceScene('wafr-wide-table'));
    expect(second).not.toBe(first);
    expect(session.current()).toBe(second);
    expect(log).toEqual(['open 1 isrr-obstacle', 'close 1', 'open 2 wafr-wide-table']);
    expect(changes).toBe(3); // opened, released, opened
    await session.close();
    expect(session.current()).toBeNull();
    expect(log.at(-1)).toBe('close 2');
    await expect(session.linkFor(a)).rejects.toThrow(/closed/);
  });

  it('serves concurrent requests one at a time: never two labs open', async () => {
    const { session, log } = fakeLab();
    const scenes = ['isrr-obstacle', 'wafr-wide-table', 'isrr-obstacle'].map(referenceScene);
    await Promise.all(scenes.map((s) => session.linkFor(s)));
    expect(log).toEqual([
      'open 1 isrr-obstacle',
      'close 1',
      'open 2 wafr-wide-table',
      'close 2',
      'open 3 isrr-obstacle',
    ]);
    await session.close();
  });

  it('keeps serving after an open fails', async () => {
    let fail = true;
    const session = new LabConnection('real', 'flaky lab', async () => {
      if (fail) throw new Error('robot unreachable');
      return { link: {} as LabLink, close: async () => undefined };
    });
    await expect(session.linkFor(referenceScene('isrr-obstacle'))).rejects.toThrow('robot unreachable');
    fail = false;
    await expect(session.linkFor(referenceScene('isrr-obstacle'))).resolves.toBeDefined();
    await session.close();
  });

  it('says what opening waits for while it waits, and nothing once it is open or refused', async () => {
    let go!: () => void;
    let fail = false;
    const session = new LabConnection('real', 'held lab', async (_scene, notify): Promise<OpenedLab> => {
      notify('RTDE inputs held by a previous session; retrying for up to 10 s');
      await new Promise<void>((r) => (go = r));
      if (fail) throw new Error('refused');
      return { link: {} as LabLink, close: async () => undefined };
    });
    expect(session.notice).toBeNull();
    const opening = session.linkFor(referenceScene('isrr-obstacle'));
    await new Promise((r) => setTimeout(r, 5));
    expect(session.notice).toBe('RTDE inputs held by a previous session; retrying for up to 10 s');
    go();
    await opening;
    expect(session.notice).toBeNull();
    fail = true;
    const refused = session.linkFor(referenceScene('wafr-wide-table'));
    await new Promise((r) => setTimeout(r, 5));
    go();
    await expect(refused).rejects.toThrow('refused');
    expect(session.notice).toBeNull();
  });
});
