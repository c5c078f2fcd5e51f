/**
 * A Motive left as it ships, or set to a bitstream the console did not ask for, is refused before
 * anything moves, with the Motive setting that fixes it (issue 46, docs/devices.md): the lab link
 * does not come up, and the controller never receives a motion command.
 */
import { describe, expect, it } from 'vitest';
import dgram from 'node:dgram';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LabLink, loopbackLabAddress } from '../../src-main/lab-link/lab-link';
import { loadSetup } from '../../src-main/calibration/setup-file';
import { NO_FRAMES_FIX } from '../../src-main/mocap/motive-settings';
import type { LabConfigInput } from '../../src-main/virtual-lab/virtual-lab';
import { labsPerTest, speedCommands } from '../helpers/virtual-lab';
import { waitUntil } from '../helpers/wait-until';
import { FREE_LAB_PORTS } from '../helpers/lab-config';

const labs = labsPerTest();

/** A UDP port nothing holds now: a multicast stream needs a data port of its own (0 is not one). */
function freeUdpPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = dgram.createSocket('udp4');
    s.bind(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Connects a LabLink to a lab started with `mocap`: the link or its refusal, and the motion commands sent. */
async function connect(mocap: NonNullable<LabConfigInput['mocap']>, ports: { natnetData?: number } = {}) {
  const lab = await labs.lab({
    mocap: { multicast: false, ...mocap },
    ports: { ...FREE_LAB_PORTS, ...ports },
  });
  const twists = speedCommands((f) => lab.ur.rtde.on('input', f));
  const setupFile = lab.writeSetup(path.join(mkdtempSync(path.join(os.tmpdir(), 'setup-')), 'lab.json'));
  const link = await LabLink.connect(loopbackLabAddress(lab.ports), lab.scene, loadSetup(setupFile)).then(
    (l) => (labs.closeAfter(() => l.close()), l),
    (err: Error) => err,
  );
  return { lab, link, twists };
}

describe('Motive streaming settings, refused with the fix named', () => {
  it('streaming off (as Motive ships): no answer, the fix named, nothing moves', async () => {
    const { link, twists } = await connect({ streaming: { enabled: false } });
    expect(link).toBeInstanceOf(Error);
    expect((link as Error).message).toContain('no frames: no answer from Motive at 127.0.0.1:');
    expect((link as Error).message).toContain(NO_FRAMES_FIX);
    expect(twists).toHaveLength(0);
  });

  it('streaming on loopback only, Motive on a PC of its own: the same refusal', async () => {
    const { link, twists } = await connect({ streaming: { localInterface: 'loopback', host: 'remote' } });
    expect(link).toBeInstanceOf(Error);
    expect((link as Error).message).toContain(NO_FRAMES_FIX);
    expect(twists).toHaveLength(0);
  });

  it('streaming on loopback with Motive on the console PC itself is heard', async () => {
    const { link } = await connect({ streaming: { localInterface: 'loopback', host: 'local' } });
    expect(link).toBeInstanceOf(LabLink);
  });
});

describe('NatNet bitstreams', () => {
  it('a multicast stream in a bitstream the console did not ask for and cannot decode is named, nothing moves', async () => {
    const { link, twists } = await connect(
      { multicast: true, motive: '3.1', natNetVersion: '2.9' },
      { natnetData: await freeUdpPort() },
    );
    expect(link).toBeInstanceOf(Error);
    expect((link as Error).message).toBe(
      "Motive streams NatNet 2.9; this console decodes 3.0..4.1: set Motive's Streaming > Bitstream version to 3.0 or newer (Motive 2.0 and later stream NatNet 3)",
    );
    expect(twists).toHaveLength(0);
  });

  it.each([
    ['2.1', '3.0'],
    ['3.0', '4.0'],
    ['3.1', '4.1'],
  ] as const)(
    'Motive %s asked for 4.1 over unicast streams NatNet %s, decoded without errors',
    async (motive, streamed) => {
      const { lab, link } = await connect({ motive });
      if (!(link instanceof LabLink)) throw link;
      // The thread reports the client's statistics every 250 ms: wait for a report that saw frames.
      await waitUntil('10 frames in the stats', () => link.natnet.getStats().frames >= 10, {
        timeoutMs: 5000,
      });
      expect([...lab.natnet.transport.clientVersions().values()]).toEqual([`${streamed}.0.0`]);
      expect(link.natnet.getStats().decodeErrors).toBe(0);
      expect(link.natnet.getStats().lastDecodeError).toBeUndefined();
    },
  );
});
