/**
 * The virtual Robotiq's position range against a real 2F-85's (docs/devices.md), in raw socket
 * lines as the URCap is spoken to: fully open it reads about 3, fully closed on nothing about 228,
 * not 0 and 255, and PRE still echoes the request. Then our client, measuring the range at
 * activation as ur_rtde does, reports and commands the gap right within 1 mm across the stroke.
 */
import net from 'node:net';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualGripper, type VirtualGripperOptions } from '../../src-main/virtual-lab/virtual-gripper';
import { ObjectStatus, openingAt, positionFor, RobotiqGripper } from '../../src-main/robot/gripper';
import {
  asPositionRange,
  loadGripperRange,
  measureGripperRange,
  saveGripperRange,
} from '../../src-main/robot/gripper-range';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** A 2F-85's stroke (m), and its travel time end to end at full speed (150 mm/s) with margin. */
const STROKE = 0.085;

async function gripper(options: VirtualGripperOptions = {}): Promise<VirtualGripper> {
  const g = await VirtualGripper.start({ port: 0, activationTime: 0.05, pusherPresent: false, ...options });
  cleanup.push(() => g.stop());
  return g;
}

/** One raw line exchange at a time: sends `line\n`, resolves with the reply (`ack` has no newline). */
async function lines(port: number): Promise<(line: string) => Promise<string>> {
  const socket = net.connect({ host: '127.0.0.1', port });
  await new Promise<void>((r, j) => socket.once('connect', r).once('error', j));
  cleanup.push(() => void socket.destroy());
  let buffer = '';
  let waiter: (() => void) | undefined;
  socket.on('data', (chunk) => {
    buffer += chunk.toString('latin1');
    waiter?.();
  });
  return async (line) => {
    socket.write(`${line}\n`);
    for (;;) {
      if (buffer.startsWith('ack')) {
        buffer = buffer.slice(3);
        return 'ack';
      }
      const nl = buffer.indexOf('\n');
      if (nl >= 0) {
        const reply = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        return reply;
      }
      await new Promise<void>((r) => (waiter = r));
    }
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `GET OBJ` until the fingers stop (OBJ leaves 0). */
async function motionEnd(ask: (l: string) => Promise<string>): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const obj = await ask('GET OBJ');
    if (obj !== 'OBJ 0') return obj;
    await sleep(10);
  }
  throw new Error('the fingers never stopped');
}

describe('virtual Robotiq 2F-85: its real position range', () => {
  it('reads about 3 fully open and about 228 fully closed on nothing; PRE echoes the request', async () => {
    const g = await gripper();
    const ask = await lines(g.port);
    expect(await ask('SET ACT 1')).toBe('ack');
    while ((await ask('GET STA')) !== 'STA 3') await sleep(10);
    expect(await ask('SET POS 0 SPE 255 FOR 0 GTO 1')).toBe('ack');
    expect(await motionEnd(ask)).toBe('OBJ 3');
    expect(await ask('GET PRE')).toBe('PRE 0');
    expect(await ask('GET POS')).toBe('POS 3');
    expect(await ask('SET POS 255 SPE 255 FOR 0 GTO 1')).toBe('ack');
    expect(await motionEnd(ask)).toBe('OBJ 3');
    expect(await ask('GET PRE')).toBe('PRE 255');
    expect(await ask('GET POS')).toBe('POS 228');
  });

  it("takes another unit's range from its options (the lab config's gripper.positionRange)", async () => {
    const g = await gripper({ positionRange: { open: 5, closed: 230 } });
    const ask = await lines(g.port);
    await ask('SET ACT 1');
    while ((await ask('GET STA')) !== 'STA 3') await sleep(10);
    await ask('SET POS 255 SPE 255 FOR 0 GTO 1');
    await motionEnd(ask);
    expect(await ask('GET POS')).toBe('POS 230');
  });
});

describe('the gap through a measured range', () => {
  it('measures 3..228 at activation, stores it, and reports and commands the gap within 1 mm across the stroke', async () => {
    const g = await gripper();
    const client = await RobotiqGripper.connect('127.0.0.1', g.port, { poll: 0.005 });
    cleanup.push(() => client.close());
    await client.activate();
    const measured = await measureGripperRange(client);
    expect([measured.open, measured.closed]).toEqual([3, 228]);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'grippers-'));
    saveGripperRange('10.0.0.2', measured, dir);
    const range = asPositionRange(loadGripperRange('10.0.0.2', dir)!);
    expect(range).toEqual({ open: 3, closed: 228 });
    // The fingers' true gap follows from where they stand between the stops (the 2F-85's 85 mm
    // travel between POS 3 and 228); what we command and report must agree with it.
    const trueGap = (pos: number): number => (STROKE * (228 - pos)) / (228 - 3);
    for (const gap of [0.085, 0.07, 0.05, 0.03, 0.01, 0.002]) {
      await client.move(positionFor(gap, STROKE, range), 255, 0);
      for (;;) {
        const obj = await client.get('OBJ');
        if (obj === ObjectStatus.AT_POSITION) break;
        await sleep(5);
      }
      const pos = await client.get('POS');
      expect(Math.abs(trueGap(pos) - gap)).toBeLessThan(0.001);
      expect(Math.abs(openingAt(pos, STROKE, range) - gap)).toBeLessThan(0.001);
    }
  });
});
