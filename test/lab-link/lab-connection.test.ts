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
});
