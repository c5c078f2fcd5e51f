/**
 * Blocking stopl in raw packages (docs/devices.md): the program's heartbeat and ack registers
 * stand still while the arm stops. Real time: the commands must keep the program's 0.1 s watchdog
 * fed, so it runs in the realtime list.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualUr } from '../../src-main/virtual-lab/virtual-ur';
import { renderControlProgram } from '../../src-main/robot/control-program';
import { CommandCode, COMMAND_INPUTS, OUTPUT_NAMES } from '../../src-main/robot/registers';
import { event, f64, i32, raw, rtdeRaw, u16, type Cleanup } from '../helpers/raw-peers';

const cleanup: Cleanup = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function ur(): Promise<VirtualUr> {
  const u = await VirtualUr.start({
    ports: { rtde: 0, dashboard: 0, secondary: 0, realtime: 0 },
    software: '5.11',
  });
  cleanup.push(() => u.stop());
  return u;
}

describe('UR RTDE (30004) and script port, raw packages', () => {
  it('blocking stopl: heartbeat and ack registers freeze until the arm stands still', async () => {
    const u = await ur();
    const peer = await rtdeRaw(cleanup, u.ports.rtde);
    peer.send('V', u16(2));
    await peer.next('V');
    peer.send(
      'O',
      Buffer.concat([
        f64(500),
        Buffer.from(
          `timestamp,actual_TCP_speed,${OUTPUT_NAMES.ackSequence},${OUTPUT_NAMES.heartbeat}`,
          'latin1',
        ),
      ]),
    );
    expect((await peer.next('O')).subarray(1).toString('latin1')).toBe('DOUBLE,VECTOR6D,INT32,INT32');
    peer.send('I', Buffer.from(COMMAND_INPUTS.join(','), 'latin1'));
    const inputId = (await peer.next('I'))[0]!;
    const samples: { t: number; speed: number; ack: number; heartbeat: number }[] = [];
    const reading = (async () => {
      for (;;) {
        const d = await peer.next('U');
        const v = [0, 1, 2, 3, 4, 5].map((k) => d.readDoubleBE(9 + 8 * k));
        samples.push({
          t: d.readDoubleBE(1),
          speed: Math.hypot(v[0]!, v[1]!, v[2]!),
          ack: d.readInt32BE(57),
          heartbeat: d.readInt32BE(61),
        });
      }
    })();
    void reading;
    peer.send('S');
    const program = await raw(cleanup, u.ports.secondary);
    await program.until(1);
    program.socket.write(renderControlProgram({}, { controllerMajor: 5 }));
    await event(u, /control program started/);
    let seq = 1;
    const command = (code: number, vx: number, acceleration: number): void => {
      seq++;
      peer.send(
        'U',
        Buffer.concat([
          Buffer.from([inputId]),
          i32(seq),
          i32(code),
          f64(vx),
          f64(0),
          f64(acceleration),
          f64(0),
          f64(6),
        ]),
      );
    };
    const every = async (ms: number, times: number, f: () => void): Promise<void> => {
      for (let k = 0; k < times; k++) {
        f();
        await new Promise((r) => setTimeout(r, ms));
      }
    };
    await every(10, 5, () => command(CommandCode.STOP, 0, 1.5)); // re-arm
    await every(10, 40, () => command(CommandCode.SPEED, 0.25, 1.5)); // up to 0.25 m/s
    const stopSeq = seq + 1;
    await every(10, 50, () => command(CommandCode.STOP, 0, 1.5));
    // The pass that takes the stop calls stopl and ends there: heartbeat and ack stand still (the
    // ack still the last speed command's) until the arm stands still and the pass writes them.
    const written = samples.findIndex((s) => s.ack === stopSeq);
    expect(written).toBeGreaterThan(0);
    let first = written - 1;
    while (first > 0 && samples[first - 1]!.heartbeat === samples[written - 1]!.heartbeat) first--;
    const frozen = samples.slice(first, written);
    for (const s of frozen) expect(s.ack).toBe(stopSeq - 1);
    expect(frozen[0]!.speed).toBeGreaterThan(0.2);
    expect(samples[written]!.speed).toBe(0);
    expect(samples[written]!.heartbeat).toBe(frozen[0]!.heartbeat + 1);
    // 0.25 m/s at 1.5 m/s^2: 0.167 s, to a control cycle or two.
    const duration = samples[written]!.t - frozen[0]!.t;
    expect(duration).toBeGreaterThan(0.25 / 1.5 - 0.006);
    expect(duration).toBeLessThan(0.25 / 1.5 + 0.006);
  });
});
