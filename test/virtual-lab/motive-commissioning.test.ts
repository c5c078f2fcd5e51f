/**
 * A Motive left as it ships, set to a bitstream the console did not ask for or to another up axis
 * than the setup's, or heard on the wrong network interface, is refused before anything moves,
 * with the setting that fixes it (issue 46, docs/devices.md): the lab link does not come up, or
 * its checklist (the one every run arms on) is red with the fix, and the controller never
 * receives a motion command.
 */
import { describe, expect, it } from 'vitest';
import dgram from 'node:dgram';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LabLink, loopbackLabAddress, type LabAddress } from '../../src-main/lab-link/lab-link';
import { labChecks } from '../../src-main/lab-link/lab-checks';
import { MocapInterfaceError, MOCAP_INTERFACE_FIX } from '../../src-main/mocap/mocap-interface';
import { UP_AXIS_FIX } from '../../src-main/mocap/streamed-axes';
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
async function connect(
  mocap: NonNullable<LabConfigInput['mocap']>,
  ports: { natnetData?: number } = {},
  o: { address?: Partial<LabAddress>; setupUpAxis?: 'y' | 'z' } = {},
) {
  const lab = await labs.lab({
    mocap: { multicast: false, ...mocap },
    ports: { ...FREE_LAB_PORTS, ...ports },
  });
  const twists = speedCommands((f) => lab.ur.rtde.on('input', f));
  const setupFile = lab.writeSetup(path.join(mkdtempSync(path.join(os.tmpdir(), 'setup-')), 'lab.json'));
  if (o.setupUpAxis) {
    // A setup written and calibrated for another up axis than Motive now streams.
    const setup = JSON.parse(readFileSync(setupFile, 'utf8'));
    setup.mocap.upAxis = o.setupUpAxis;
    writeFileSync(setupFile, JSON.stringify(setup));
  }
  const address = { ...loopbackLabAddress(lab.ports), ...o.address };
  const link = await LabLink.connect(address, lab.scene, loadSetup(setupFile)).then(
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

describe("Motive's up axis, judged from the frames against the setup's", () => {
  it('Motive streaming Z-up to a setup calibrated Y-up: red with the Up Axis fix, nothing moves', async () => {
    const { lab, link, twists } = await connect({ streaming: { upAxis: 'z' } }, {}, { setupUpAxis: 'y' });
    if (!(link instanceof LabLink)) throw link;
    await waitUntil('a frame', () => link.streamedBodies() !== undefined, { timeout: 5 });
    const axes = labChecks(link, lab.scene).checks.find((c) => c.id === 'mocap-axes')!;
    expect(axes.ok).toBe(false);
    expect(axes.reason).toMatch(/^Motive streams Z-up \(.+ about its z axis\), the setup is Y-up/);
    expect(axes.fix).toBe(UP_AXIS_FIX('y'));
    expect(twists).toHaveLength(0);
  });

  it('Motive streaming Z-up to a setup calibrated Z-up passes', async () => {
    const { lab, link } = await connect({ streaming: { upAxis: 'z' } });
    if (!(link instanceof LabLink)) throw link;
    await waitUntil('a frame', () => link.streamedBodies() !== undefined, { timeout: 5 });
    const axes = labChecks(link, lab.scene).checks.find((c) => c.id === 'mocap-axes')!;
    expect(axes).toMatchObject({ ok: true, reason: 'Z-up as the setup, positions in metres' });
  });
});

describe('the network interface motion capture is heard on', () => {
  it('is the one on the route to Motive, shown in the checklist', async () => {
    const { lab, link } = await connect({});
    if (!(link instanceof LabLink)) throw link;
    const iface = labChecks(link, lab.scene).checks.find((c) => c.id === 'mocap-interface')!;
    expect(iface.ok).toBe(true);
    expect(iface.reason).toMatch(/^lo \(127\.0\.0\.1\/\d+\), the route to Motive at 127\.0\.0\.1$/);
  });

  it('the mocap host reachable only on a second interface: refused with its fix, nothing moves', async () => {
    // A PC whose first card (robot0) holds 127.0.0.2 and whose route to Motive at 127.0.0.1 is lo;
    // the lab file names the first card's address. Loopback addresses only: nothing leaves 127/8.
    const interfaces = {
      lo: [{ address: '127.0.0.1', netmask: '255.255.255.255', family: 'IPv4' }],
      robot0: [{ address: '127.0.0.2', netmask: '255.255.255.255', family: 'IPv4' }],
    };
    const { link, twists } = await connect({}, {}, { address: { mocapLocal: '127.0.0.2', interfaces } });
    expect(link).toBeInstanceOf(MocapInterfaceError);
    expect((link as MocapInterfaceError).problem).toBe(
      'Motive at 127.0.0.1 is reached only through lo (127.0.0.1/32), but the mocap interface is set to 127.0.0.2 on robot0: multicast joined there hears no frame',
    );
    expect((link as MocapInterfaceError).fix).toBe(MOCAP_INTERFACE_FIX('127.0.0.1'));
    expect(twists).toHaveLength(0);
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
        timeout: 5,
      });
      expect([...lab.natnet.transport.clientVersions().values()]).toEqual([`${streamed}.0.0`]);
      expect(link.natnet.getStats().decodeErrors).toBe(0);
      expect(link.natnet.getStats().lastDecodeError).toBeUndefined();
    },
  );
});
