/**
 * A blocking stopl freezes the program's heartbeat for the stop's duration (docs/devices.md): a
 * robot link restored while the arm is still stopping finds the program alive and does not
 * restart it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualUr } from '../../src-main/virtual-lab/virtual-ur';
import { maxStopDuration } from '../../src-main/robot/control-program';
import { Ur5Connection } from '../../src-main/robot/ur5-connection';

const EPHEMERAL = { rtde: 0, dashboard: 0, secondary: 0, realtime: 0 };
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('reconnect liveness with a blocking stopl', () => {
  it("tolerates the stop's frozen heartbeat: the program is not restarted", async () => {
    const ur = await VirtualUr.start({ ports: EPHEMERAL, software: '5.11' });
    cleanup.push(() => ur.stop());
    const c = await Ur5Connection.connect({
      host: '127.0.0.1',
      rtdePort: ur.ports.rtde,
      scriptPort: ur.ports.secondary,
      reconnectDelay: { initial: 0.1, max: 0.2 },
    });
    cleanup.push(() => c.disconnect());
    await c.waitForState((s) => s.program.state === 'ARMED');
    const drive = setInterval(() => {
      if (c.linkUp) c.sendTwist(c.settings.maxSpeed, 0, 1.5);
    }, 8);
    await c.waitForState((s) => Math.hypot(s.tcpSpeed[0]!, s.tcpSpeed[1]!) > 0.24);
    clearInterval(drive);
    let sent = 0;
    c.on('programSent', () => sent++);
    // Heartbeats as the controller writes them: when one stands still while the arm moves.
    const beats: { t: number; heartbeat: number; speed: number }[] = [];
    const unsubscribe = ur.onMotion((m) =>
      beats.push({
        t: m.time,
        heartbeat: ur.controller.registers.outputInt[26]!,
        speed: Math.hypot(...m.velocity),
      }),
    );
    const restored = new Promise<void>((r) => c.once('linkRestored', r));
    // A cable pulled mid-push: the program's watchdog trips and its stopl blocks it.
    ur.rtde.dropClients();
    await restored;
    unsubscribe();
    await sleep(100);
    expect(sent).toBe(0);
    expect(c.latest?.program.state).toBe('ARMED');
    // The heartbeat did stand still while the arm stopped, for about the stop's duration.
    let longest = 0;
    let since = beats[0]!;
    for (const b of beats) {
      if (b.heartbeat !== since.heartbeat) since = b;
      else longest = Math.max(longest, b.t - since.t);
    }
    expect(longest).toBeGreaterThan(0.25 / 1.5 - 0.01);
    expect(longest).toBeLessThanOrEqual(maxStopDuration(c.settings, { controllerMajor: 5 }));
  });
});
