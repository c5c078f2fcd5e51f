import { afterEach, describe, expect, it } from 'vitest';
import { VirtualGripper } from '../../src-main/virtual-lab/virtual-gripper';
import { LineServer } from '../../src-main/virtual-lab/virtual-ur/line-server';
import {
  decodeFault,
  GripperError,
  GripperFaultError,
  GripperUnavailableError,
  RobotiqGripper,
} from '../../src-main/robot/gripper';
import type { GripperStopReason } from '../../src-main/robot/finger-device';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/**
 * A gripper that answers from a fixed script: request line -> list of replies, used in turn, framed
 * as the URCap frames them (`ack` bare, everything else a line).
 */
async function scripted(script: Record<string, string[]>): Promise<{ port: number; heard: string[] }> {
  const heard: string[] = [];
  const server = new LineServer({
    reply: (line) => {
      heard.push(line);
      const replies = script[line];
      if (!replies || replies.length === 0) return 'unexpected';
      return replies.length > 1 ? replies.shift()! : replies[0]!;
    },
    frame: (reply) => (reply === 'ack' ? 'ack' : `${reply}\n`),
  });
  const port = await server.listen(0);
  cleanup.push(() => server.close());
  return { port, heard };
}

async function client(port: number): Promise<RobotiqGripper> {
  const g = await RobotiqGripper.connect('127.0.0.1', port, { poll: 0.005 });
  cleanup.push(() => g.close());
  return g;
}

describe('Robotiq client against scripted replies', () => {
  it('activates with the reset-then-activate sequence', async () => {
    const { port, heard } = await scripted({
      'SET ACT 0': ['ack'],
      'SET ATR 0': ['ack'],
      'GET ACT': ['ACT 1', 'ACT 0'],
      'GET STA': ['STA 0', 'STA 1', 'STA 1', 'STA 3'],
      'SET ACT 1': ['ack'],
    });
    const g = await client(port);
    await g.activate(2);
    expect(heard.slice(0, 3)).toEqual(['SET ACT 0', 'SET ATR 0', 'GET ACT']);
    expect(heard.indexOf('SET ACT 1')).toBeGreaterThan(heard.indexOf('GET STA'));
    expect(heard.at(-1)).toBe('GET STA');
  });

  it('confirms the pusher is held on OBJ = 2', async () => {
    const { port, heard } = await scripted({
      'SET POS 255 SPE 100 FOR 50 GTO 1': ['ack'],
      'GET PRE': ['PRE 0', 'PRE 255'],
      'GET FLT': ['FLT 0'],
      'GET OBJ': ['OBJ 0', 'OBJ 0', 'OBJ 2'],
      'GET STA': ['STA 3'],
      'GET POS': ['POS 227'],
    });
    const g = await client(port);
    const status = await g.closeOnPusher({ speed: 100, force: 50 });
    expect(status).toMatchObject({
      object: 2,
      position: 227,
      activation: 3,
      fault: { code: 0, class: 'none' },
    });
    expect(heard[0]).toBe('SET POS 255 SPE 100 FOR 50 GTO 1');
  });

  it('fails when the fingers close on nothing (OBJ = 3)', async () => {
    const { port } = await scripted({
      'SET POS 255 SPE 128 FOR 128 GTO 1': ['ack'],
      'GET PRE': ['PRE 255'],
      'GET FLT': ['FLT 0'],
      'GET OBJ': ['OBJ 3'],
    });
    const g = await client(port);
    await expect(g.closeOnPusher()).rejects.toThrow(/no pusher between the fingers/);
  });

  it('decodes faults by class and stops a grip on a major fault', async () => {
    expect(decodeFault(0x05)).toMatchObject({ class: 'priority', needsReactivation: false });
    expect(decodeFault(0x08)).toMatchObject({ class: 'minor' });
    expect(decodeFault(0x0e)).toMatchObject({
      class: 'major',
      needsReactivation: true,
      description: 'overcurrent triggered',
    });
    expect(decodeFault(0x42)).toMatchObject({ class: 'unknown', description: 'unknown fault 0x42' });
    const { port } = await scripted({
      'SET POS 255 SPE 128 FOR 128 GTO 1': ['ack'],
      'GET PRE': ['PRE 255'],
      'GET FLT': ['FLT 14'],
    });
    const g = await client(port);
    const err = await g.closeOnPusher().catch((e) => e);
    expect(err).toBeInstanceOf(GripperFaultError);
    expect((err as GripperFaultError).fault.code).toBe(0x0e);
  });

  it("treats '?' as an emergency stop, and garbage as an error", async () => {
    const { port } = await scripted({
      'GET OBJ': ['?'],
      'GET POS': ['POS ?'],
      'GET STA': ['STA x'],
      'SET GTO 1': ['?'],
    });
    const g = await client(port);
    await expect(g.get('OBJ')).rejects.toBeInstanceOf(GripperUnavailableError);
    await expect(g.get('POS')).rejects.toBeInstanceOf(GripperUnavailableError);
    await expect(g.get('STA')).rejects.toThrow(/unexpected reply to GET STA: "STA x"/);
    await expect(g.set({ GTO: 1 })).rejects.toBeInstanceOf(GripperUnavailableError);
    await expect(g.set({ POS: 300 })).rejects.toBeInstanceOf(RangeError);
  });

  it('a SET that is never acknowledged is a GripperError that says so, not a link error', async () => {
    // A device that takes the SET and sends nothing back.
    const server = new LineServer({ reply: () => 'silence', frame: () => '' });
    const port = await server.listen(0);
    cleanup.push(() => server.close());
    const g = await RobotiqGripper.connect('127.0.0.1', port, { timeout: 0.2, poll: 0.005 });
    cleanup.push(() => g.close());
    const err = await g.set({ ACT: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GripperError);
    expect((err as Error).message).toMatch(
      /^gripper did not acknowledge SET \(SET ACT 1\): gripper: no reply within 0.2 s/,
    );
  });

  it('takes an ack with a newline after it too, without shifting the replies that follow', async () => {
    const server = new LineServer({ reply: (line) => (line.startsWith('SET') ? 'ack' : 'ACT 1') });
    const port = await server.listen(0);
    cleanup.push(() => server.close());
    const g = await client(port);
    await g.set({ ACT: 1 });
    expect(await g.get('ACT')).toBe(1);
    await g.set({ ACT: 1 });
    await g.set({ GTO: 1 });
    expect(await g.get('ACT')).toBe(1);
  });

  it('the monitor reports a lost pusher as a stop reason', async () => {
    const { port } = await scripted({ 'GET FLT': ['FLT 0'], 'GET OBJ': ['OBJ 2', 'OBJ 2', 'OBJ 3'] });
    const g = await client(port);
    const reason = await new Promise<GripperStopReason>((resolve) => {
      g.once('stop', resolve);
      g.startMonitor();
    });
    expect(reason).toEqual({ kind: 'pusher-lost', object: 3 });
  });
});

describe('Robotiq client against the virtual gripper', () => {
  async function virtual(options = {}): Promise<VirtualGripper> {
    const v = await VirtualGripper.start({ port: 0, activationTime: 0.05, ...options });
    cleanup.push(() => v.stop());
    return v;
  }

  it('activates, closes on the pusher and reports its loss', async () => {
    const v = await virtual();
    const g = await client(v.port);
    await g.activate();
    const held = await g.closeOnPusher({ speed: 255 });
    expect(held.object).toBe(2);
    expect(held.position).toBe(227);
    expect(await g.pusherHeld()).toBe(true);
    const stop = new Promise<GripperStopReason>((resolve) => g.once('stop', resolve));
    g.startMonitor();
    v.dropPusher();
    expect(await stop).toMatchObject({ kind: 'pusher-lost' });
  });

  it('closes fully with no pusher, and refuses to move before activation', async () => {
    const v = await virtual({ pusherPresent: false });
    const g = await client(v.port);
    await g.set({ POS: 255, GTO: 1 });
    expect((await g.status()).fault).toMatchObject({ code: 0x07, class: 'priority' });
    await g.activate();
    await expect(g.closeOnPusher({ speed: 255 })).rejects.toThrow(GripperError);
  });

  it('reports an injected fault and an e-stop through the monitor', async () => {
    const v = await virtual();
    const g = await client(v.port);
    await g.activate();
    await g.closeOnPusher({ speed: 255 });
    const faulted = new Promise<GripperStopReason>((resolve) => g.once('stop', resolve));
    g.startMonitor();
    v.injectFault(0x0e);
    expect(await faulted).toMatchObject({ kind: 'fault', fault: { code: 0x0e, class: 'major' } });
    await g.activate(); // toggling ACT clears a major fault
    await g.closeOnPusher({ speed: 255 });
    const eStopped = new Promise<GripperStopReason>((resolve) => g.once('stop', resolve));
    g.startMonitor();
    v.setEmergencyStop(true);
    expect(await eStopped).toEqual({ kind: 'emergency-stop' });
  });
});
