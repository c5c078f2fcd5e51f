/**
 * The virtual devices against what the real ones are documented to do (docs/devices.md), in raw
 * bytes as a real client or the device's own documents send them: no client of ours is involved,
 * so a virtual device that merely echoes our clients fails here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualGripper } from '../../src-main/virtual-lab/virtual-gripper';
import { VirtualUr, type VirtualUrOptions } from '../../src-main/virtual-lab/virtual-ur';
import { LOCAL_MODE_REFUSAL } from '../../src-main/virtual-lab/virtual-ur/dashboard-server';
import { event, f64, raw, rtdeRaw, setupInputs, u16 } from '../helpers/raw-peers';
import { performance } from 'node:perf_hooks';
import { renderControlProgram } from '../../src-main/robot/control-program';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const EPHEMERAL = { rtde: 0, dashboard: 0, secondary: 0, realtime: 0 };

async function ur(options: VirtualUrOptions = {}): Promise<VirtualUr> {
  const u = await VirtualUr.start({ ports: EPHEMERAL, ...options });
  cleanup.push(() => u.stop());
  return u;
}

/** Sends dashboard lines one at a time and returns each reply line. */
async function dashboard(u: VirtualUr, lines: string[]): Promise<string[]> {
  const peer = await raw(cleanup, u.ports.dashboard);
  let text = (await peer.until(1)).toString('latin1');
  const out: string[] = [];
  for (const line of lines) {
    const before = text.split('\n').length;
    peer.socket.write(`${line}\n`);
    while ((text = peer.received().toString('latin1')).split('\n').length <= before)
      await peer.until(text.length + 1);
    out.push(text.split('\n')[before - 1]!);
  }
  return out;
}

describe('Robotiq URCap socket (63352), raw bytes', () => {
  it('answers SET with exactly the three bytes "ack" and GET with "VAR value" and a newline', async () => {
    const g = await VirtualGripper.start({ port: 0, activationTime: 0 });
    cleanup.push(() => g.stop());
    const peer = await raw(cleanup, g.port);
    peer.socket.write('SET ACT 1\n');
    expect((await peer.until(3)).toString('latin1')).toBe('ack');
    // Nothing follows the ack: the next bytes are the GET's reply.
    peer.socket.write('GET ACT\n');
    expect((await peer.until(9)).toString('latin1')).toBe('ackACT 1\n');
    peer.socket.write('SET POS 255 SPE 128 FOR 128 GTO 1\n');
    expect((await peer.until(12)).toString('latin1')).toBe('ackACT 1\nack');
  });
});

describe('UR script ports (30002/30003), raw bytes', () => {
  it('sends first on connect: a primary-protocol version message', async () => {
    const u = await ur();
    const peer = await raw(cleanup, u.ports.secondary);
    const bytes = await peer.until(5);
    expect(bytes.readInt32BE(0)).toBe((await peer.until(bytes.readInt32BE(0))).length);
    expect(bytes[4]).toBe(20); // ROBOT_MESSAGE
  });

  it('runs a program framed def ... end on a connection that is read and kept open', async () => {
    const u = await ur();
    const peer = await raw(cleanup, u.ports.secondary);
    await peer.until(1);
    const started = event(u, /control program started/);
    peer.socket.write(renderControlProgram());
    await started;
    expect(u.controller.runtime).toBe('PLAYING');
  });

  it('refuses a program followed by a call after "end": the call is a program of its own, and fails', async () => {
    const u = await ur();
    const peer = await raw(cleanup, u.ports.secondary);
    await peer.until(1);
    const replaced = event(u, /foreign script replaced the control program: parapush_control\(\)/);
    peer.socket.write(`${renderControlProgram()}parapush_control()\n`);
    await replaced;
    expect(u.controller.runtime).toBe('STOPPED');
    expect(u.controller.programState).toBeUndefined();
  });

  it('discards a program whose sender closed before the controller took it', async () => {
    const u = await ur();
    const peer = await raw(cleanup, u.ports.secondary);
    const discarded = event(u, /program discarded|control program started/);
    // Write and close at once, as a sender that never reads what the controller sends.
    peer.socket.end(renderControlProgram());
    expect(await discarded).toMatch(/program discarded: connection closed before it was taken/);
    expect(u.controller.runtime).toBe('STOPPED');
  });

  it('ignores external programs on an e-Series in Local mode', async () => {
    const u = await ur({ software: '5.11', remoteControl: false });
    const peer = await raw(cleanup, u.ports.secondary);
    await peer.until(1);
    const ignored = event(u, /script ignored: controller in Local mode/);
    peer.socket.write(renderControlProgram());
    await ignored;
    expect(u.controller.runtime).toBe('STOPPED');
  });
});

describe('UR Dashboard server (29999) by software version, raw lines', () => {
  it('CB3 3.15: safetymode only; safetystatus and is in remote control are unknown commands', async () => {
    const u = await ur({ software: '3.15' });
    expect(u.controller.frequency).toBe(125);
    expect(
      await dashboard(u, [
        'PolyscopeVersion',
        'safetymode',
        'safetystatus',
        'is in remote control',
        'get robot model',
      ]),
    ).toEqual([
      'URSoftware 3.15.7.106331 (virtual)',
      'Safetymode: NORMAL',
      "could not understand: 'safetystatus'",
      "could not understand: 'is in remote control'",
      'UR5',
    ]);
  });

  it('e-Series 5.4: safetystatus, but no is in remote control yet', async () => {
    const u = await ur({ software: '5.4' });
    expect(u.controller.frequency).toBe(500);
    expect(await dashboard(u, ['safetystatus', 'is in remote control'])).toEqual([
      'Safetystatus: NORMAL',
      "could not understand: 'is in remote control'",
    ]);
  });

  it('e-Series 5.11: remote control and the e-Series safety statuses', async () => {
    const u = await ur({ software: '5.11' });
    u.controller.safetyMode = 12;
    expect(await dashboard(u, ['is in remote control', 'safetystatus'])).toEqual([
      'true',
      'Safetystatus: AUTOMATIC_MODE_SAFEGUARD_STOP',
    ]);
  });

  it('e-Series in Local mode: says so, and refuses the commands that act on the robot', async () => {
    const u = await ur({ software: '5.11', remoteControl: false });
    expect(await dashboard(u, ['is in remote control', 'robotmode', 'play', 'power on'])).toEqual([
      'false',
      'Robotmode: RUNNING',
      LOCAL_MODE_REFUSAL,
      LOCAL_MODE_REFUSAL,
    ]);
  });

  it('unlock protective stop: "releasing" starts the release; the robot runs again only when it is done', async () => {
    const u = await ur({ unlockDelay: 0, releaseTime: 0.2 });
    u.controller.injectProtectiveStop();
    const released = event(u, /protective stop released/);
    expect(await dashboard(u, ['unlock protective stop', 'robotmode', 'safetystatus'])).toEqual([
      'Protective stop releasing',
      'Robotmode: IDLE',
      'Safetystatus: PROTECTIVE_STOP',
    ]);
    await released;
    expect(await dashboard(u, ['robotmode', 'safetystatus'])).toEqual([
      'Robotmode: RUNNING',
      'Safetystatus: NORMAL',
    ]);
  });
});

describe('UR RTDE (30004), raw packages', () => {
  it('a session cut off by a pulled cable keeps its inputs until its connection times out: IN_USE, then free', async () => {
    const u = await ur({ halfOpenHold: 0.5 });
    const names = ['input_int_register_24', 'input_double_register_24'];
    const first = await rtdeRaw(cleanup, u.ports.rtde);
    expect(await setupInputs(first, names)).toEqual({ id: 1, types: 'INT32,DOUBLE' });
    u.rtde.dropClients();
    const pulledAt = performance.now();
    const second = await rtdeRaw(cleanup, u.ports.rtde);
    expect(await setupInputs(second, names)).toEqual({ id: 0, types: 'IN_USE,IN_USE' });
    await new Promise((r) => setTimeout(r, 500 - (performance.now() - pulledAt) + 50));
    second.send('I', Buffer.from(names.join(','), 'latin1'));
    const reply = await second.next('I');
    expect(reply.subarray(1).toString('latin1')).toBe('INT32,DOUBLE');
    expect(reply[0]).toBeGreaterThan(0);
  });

  it('a client that closes its connection frees its inputs at once', async () => {
    const u = await ur({ halfOpenHold: 30 });
    const first = await rtdeRaw(cleanup, u.ports.rtde);
    expect((await setupInputs(first, ['input_int_register_30'])).types).toBe('INT32');
    const closed = new Promise((r) => first.socket.once('close', r));
    first.socket.end();
    await closed;
    await new Promise((r) => setTimeout(r, 20));
    const second = await rtdeRaw(cleanup, u.ports.rtde);
    expect((await setupInputs(second, ['input_int_register_30'])).types).toBe('INT32');
  });

  it('PolyScope X (10.x): RTDE says version 10; no Dashboard server listens', async () => {
    const u = await ur({ software: '10.7' });
    expect(u.ports.dashboard).toBe(0);
    const peer = await rtdeRaw(cleanup, u.ports.rtde);
    peer.send('v');
    expect((await peer.next('v')).readUInt32BE(0)).toBe(10);
  });

  it('the speed slider is reported as speed_scaling and target_speed_fraction', async () => {
    const u = await ur({ speedSlider: 0.5 });
    const peer = await rtdeRaw(cleanup, u.ports.rtde);
    peer.send('V', u16(2));
    await peer.next('V');
    peer.send('O', Buffer.concat([f64(125), Buffer.from('speed_scaling,target_speed_fraction', 'latin1')]));
    expect((await peer.next('O')).subarray(1).toString('latin1')).toBe('DOUBLE,DOUBLE');
    peer.send('S');
    await peer.next('S');
    const data = await peer.next('U');
    expect([data.readDoubleBE(1), data.readDoubleBE(9)]).toEqual([0.5, 0.5]);
  });

  it('a CB3 does not run a program with the e-Series stopl(a, aRot); it runs the stopl(a) one', async () => {
    const u = await ur({ software: '3.15' });
    const peer = await raw(cleanup, u.ports.secondary);
    await peer.until(1);
    const refused = event(u, /script refused: stopl takes one argument on a CB3/);
    peer.socket.write(renderControlProgram({}, { controllerMajor: 5 }));
    await refused;
    expect(u.controller.runtime).toBe('STOPPED');
    const started = event(u, /control program started/);
    peer.socket.write(renderControlProgram({}, { controllerMajor: 3 }));
    await started;
    expect(u.controller.runtime).toBe('PLAYING');
  });
});
