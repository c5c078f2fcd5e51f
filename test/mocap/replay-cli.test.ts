import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCapture } from '../../src-main/mocap/capture';
import { NatNetClient } from '../../src-main/mocap/client';
import { serveCapture } from '../../src-main/virtual-lab/replay-serve';
import { loadCalibration } from '../../src-main/calibration/mocap-table';
import { expected, fixture, fixtureDir } from './fixtures';
import { pcapng } from './pcap-writer';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'parapush-replay-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['bin/parapush.mjs', 'mocap', ...args], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const t0 = 1_700_000_000;
const captureFile = path.join(tmp, 'motive.pcapng');
writeFileSync(
  captureFile,
  pcapng([
    { time: t0, srcPort: 1510, dstPort: 50000, payload: fixture('serverinfo_packet_v3.bin') },
    { time: t0 + 0.001, srcPort: 1510, dstPort: 50000, payload: fixture('modeldef_packet_v3.bin') },
    { time: t0 + 0.002, srcPort: 1511, dstPort: 1511, payload: fixture('mocapframe_packet_v3.bin') },
    {
      time: t0 + 0.0103,
      srcPort: 1511,
      dstPort: 1511,
      payload: fixture('mocapframe_packet_occluded_v3.bin'),
    },
  ]),
);

describe('parapush mocap replay', () => {
  it('--json prints one object per frame with the documented fields', () => {
    const r = cli('replay', captureFile, '--json');
    expect(r.status).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    const e = expected.files['mocapframe_packet_v3.bin'];
    expect(lines[0]).toEqual({
      frame: 162734,
      timestamp: e.timestamp_seconds_exact,
      rigidBodies: [
        {
          id: 2,
          name: 'RaceQuad',
          position: e.rigid_bodies[0].position_exact,
          orientation: e.rigid_bodies[0].orientation_xyzw_exact,
          meanError: e.rigid_bodies[0].mean_error_exact,
          trackingValid: true,
        },
      ],
    });
    expect(lines[1].frame).toBe(269007);
    expect(r.stderr).toMatch(/4 packets, 2 frames, 0 undecodable, NatNet 3\.0\.0\.0/);
  });

  it('prints one line per frame from a folder of packet files', () => {
    const dir = path.join(tmp, 'folder');
    mkdirSync(dir);
    copyFileSync(path.join(fixtureDir, 'modeldef_packet_v3.bin'), path.join(dir, '0.bin'));
    copyFileSync(path.join(fixtureDir, 'mocapframe_packet_v3.bin'), path.join(dir, '1.bin'));
    const r = cli('replay', dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('frame 162734  t=1356.1167 s  RaceQuad (174.4, 1447.1, -734.3) mm\n');
  });

  it('reports a missing file as a usage error', () => {
    const r = cli('replay', path.join(tmp, 'nope.pcap'));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^parapush: .*nope\.pcap/);
  });

  it('calibrate fits and saves a setup, and rejects too few pairs', () => {
    const pairs = path.join(tmp, 'pairs.json');
    // Y-up mocap: table (x, y) is seen at (x, 0, -y), shifted by 1 m along mocap x.
    writeFileSync(
      pairs,
      JSON.stringify([
        { mocap: [1.1, 0, -0.2], table: [0.1, 0.2] },
        { mocap: [0.7, 0, -0.2], table: [-0.3, 0.2] },
        { mocap: [0.7, 0, 0.3], table: [-0.3, -0.3] },
        { mocap: [1.4, 0, 0.3], table: [0.4, -0.3] },
      ]),
    );
    const dir = path.join(tmp, 'calibrations');
    const r = cli('calibrate', '--pairs', pairs, '--setup', 'lab-1', '--dir', dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/lab-1\.json: 3d fit of 4 pairs, residual rms 0\.00 mm/);
    const c = loadCalibration(dir, 'lab-1');
    expect(c.translation[0]).toBeCloseTo(-1, 6);
    writeFileSync(pairs, JSON.stringify([{ mocap: [0, 0, 0], table: [0, 0] }]));
    const bad = cli('calibrate', '--pairs', pairs, '--setup', 'lab-2', '--dir', dir);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/at least 3/);
  });
});

describe('replay --serve', () => {
  it('re-streams the capture to a client, which decodes it with the capture model definitions', async () => {
    const { packets } = loadCapture(captureFile);
    const controller = new AbortController();
    let listening: (port: number) => void = () => {};
    const port = new Promise<number>((resolve) => (listening = resolve));
    const serving = serveCapture(packets, {
      address: '127.0.0.1',
      commandPort: 0,
      onListening: (p) => listening(p),
      dataPort: 0,
      multicast: false,
      loop: true,
      signal: controller.signal,
    });
    const client = new NatNetClient({
      serverAddress: '127.0.0.1',
      commandPort: await port,
      localAddress: '127.0.0.1',
    });
    try {
      const info = await client.connect();
      expect([...info.natNetVersion]).toEqual([3, 0, 0, 0]);
      const names = await new Promise<(string | undefined)[]>((resolve) => {
        client.on('frame', (f, s) => {
          if (f.frameNumber === 162734 && s.rigidBodies[0]!.name) resolve(s.rigidBodies.map((b) => b.name));
        });
      });
      expect(names).toEqual(['RaceQuad']);
      expect(client.getStats().decodeErrors).toBe(0);
    } finally {
      controller.abort();
      await client.close();
      await serving;
    }
  });
});
