/**
 * `npm run bench -- mocap [seconds]`: the motion-capture path.
 * Decode: frames decoded per second (decodePacket on whole packets) for the captured Motive frame
 * and for a lab-sized frame (8 rigid bodies, 40 labeled markers) in NatNet 3.1 and 4.1 layouts.
 * Latency: from the virtual server handing a frame to its socket to the scene state (planar poses)
 * being updated in the client, over loopback, multicast and unicast, at 120 Hz.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { VirtualNatNetServer, type TablePose } from '../src-main/virtual-lab/natnet-server';
import { identityCalibration } from '../src-main/calibration/mocap-table';
import { NatNetClient } from '../src-main/mocap/client';
import { monotonicNanoseconds } from '../src-main/common/clock';
import { emptyFrame, type FrameOfData } from '../src-main/mocap/messages/frame';
import { decodePacket, encodePacket } from '../src-main/mocap/packet';
import { toPlanarPoses, type MocapBinding, type PlanarPoses } from '../src-main/mocap/scene-binding';
import type { NatNetVersion } from '../src-main/mocap/version';
import { meanCi95, printTable, writeResult, type Row } from './report';
import { quantileOfSorted } from '../src-main/common/quantile';

function labFrame(): FrameOfData {
  const f = emptyFrame(1);
  for (let i = 0; i < 8; i++) {
    f.rigidBodies.push({
      id: i + 1,
      position: [i * 0.1, 0.05, -0.2],
      orientation: [0, 0.2, 0, 0.98],
      meanError: 2e-4,
      params: 1,
    });
  }
  for (let i = 0; i < 40; i++) {
    f.labeledMarkers.push({
      id: ((i % 8) + 1) * 65536 + i,
      position: [i * 0.01, 0.06, -0.2],
      size: 0.014,
      params: 0x0c,
      residual: 1e-4,
    });
  }
  f.cameraMidExposure = 1000n;
  f.transmit = 40000n;
  return f;
}

/** Decodes per second over `seconds`, in 5 rounds; mean and 95% CI. */
function decodeRate(packet: Uint8Array, v: NatNetVersion, seconds: number): { mean: number; ci95: number } {
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    let n = 0;
    const t0 = performance.now();
    const until = t0 + (seconds * 1000) / 5;
    let now = t0;
    while (now < until) {
      for (let k = 0; k < 1000; k++)
        if (!decodePacket(packet, v).ok) throw new Error('bench packet did not decode');
      n += 1000;
      now = performance.now();
    }
    rounds.push(n / ((now - t0) / 1000));
  }
  return meanCi95(rounds);
}

async function latency(multicast: boolean, version: NatNetVersion, seconds: number): Promise<Row> {
  const dataPort = 40000 + Math.floor(Math.random() * 20000);
  const server = new VirtualNatNetServer({
    rigidBodies: [
      { id: 1, name: 'Pusher' },
      { id: 2, name: 'Slider' },
    ],
    address: '127.0.0.1',
    commandPort: 0,
    dataPort,
    multicast,
    multicastInterface: '127.0.0.1',
    natNetVersion: version,
    rateHz: 120,
  });
  const poses = new Map<string, TablePose>([
    ['Pusher', { x: 0, y: 0, theta: 0 }],
    ['Slider', { x: 0.1, y: 0.2, theta: 0.3 }],
  ]);
  server.setPoseSource(() => poses);
  const sent = new Map<number, bigint>();
  server.onFrameSent((f) => sent.set(f.frameNumber, f.sentAtNs));
  await server.start();
  const client = new NatNetClient({
    serverAddress: '127.0.0.1',
    commandPort: server.commandPort,
    localAddress: '127.0.0.1',
  });
  const binding: MocapBinding = { pusher: 'Pusher', sliders: [{ id: 'slider', rigidBody: 'Slider' }] };
  const calibration = identityCalibration('y');
  const samples: number[] = [];
  let state: PlanarPoses | undefined;
  client.on('frame', (frame, snapshot) => {
    if (snapshot.rigidBodies.some((b) => b.name === undefined)) return;
    state = toPlanarPoses(snapshot, binding, calibration, { previous: state });
    const at = sent.get(frame.frameNumber);
    if (at !== undefined && state.ok) samples.push(Number(monotonicNanoseconds() - at) / 1e6);
    sent.delete(frame.frameNumber);
  });
  await client.connect();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const stats = client.getStats();
  await client.close();
  await server.stop();
  samples.sort((a, b) => a - b);
  return {
    mode: multicast ? 'multicast' : 'unicast',
    natnet: version.slice(0, 2).join('.'),
    frames: samples.length,
    'frame rate Hz': stats.frameRate,
    'median ms': quantileOfSorted(samples, 0.5),
    'p95 ms': quantileOfSorted(samples, 0.95),
    'p99 ms': quantileOfSorted(samples, 0.99),
    'max ms': samples.at(-1) ?? NaN,
    dropped: stats.droppedFrames,
  };
}

export async function run(args: string[]): Promise<void> {
  const seconds = Number(args[0] ?? 3);
  const captured = new Uint8Array(
    readFileSync(path.resolve('../shared/fixtures/natnet/mocapframe_packet_v3.bin')),
  );
  const lab = labFrame();
  const cases: [string, Uint8Array, NatNetVersion][] = [
    ['captured Motive frame (1 RB, 6 markers)', captured, [3, 0, 0, 0]],
    ['lab frame (8 RB, 40 markers)', encodePacket({ kind: 'frame', ...lab }, [3, 1, 0, 0]), [3, 1, 0, 0]],
    ['lab frame (8 RB, 40 markers)', encodePacket({ kind: 'frame', ...lab }, [4, 1, 0, 0]), [4, 1, 0, 0]],
  ];
  const decodeRows: Row[] = cases.map(([name, packet, v]) => {
    const r = decodeRate(packet, v, seconds);
    return {
      frame: name,
      natnet: v.slice(0, 2).join('.'),
      bytes: packet.byteLength,
      'frames/s': r.mean,
      '±95%': r.ci95,
    };
  });
  printTable('Frame decoding (decodePacket, whole packet; mean of 5 rounds)', decodeRows);

  const latencyRows: Row[] = [];
  for (const [multicast, v] of [
    [true, [3, 1, 0, 0]],
    [false, [3, 1, 0, 0]],
    [true, [4, 1, 0, 0]],
    [false, [4, 1, 0, 0]],
  ] as [boolean, NatNetVersion][]) {
    latencyRows.push(await latency(multicast, v, seconds));
  }
  printTable(`Virtual server send -> scene state update, loopback, 120 Hz, ${seconds} s each`, latencyRows);
  writeResult('mocap', { seconds, decode: decodeRows, latency: latencyRows });
}
