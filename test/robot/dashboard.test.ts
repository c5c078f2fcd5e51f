import { afterEach, describe, expect, it } from 'vitest';
import { VirtualUr } from '../../src-main/virtual-lab/virtual-ur';
import { DashboardClient, DashboardRefusedError, parseSafetyStatus } from '../../src-main/robot/dashboard';
import { renderControlProgram } from '../../src-main/robot/control-program';
import { ScriptConnection } from '../../src-main/robot/script-connection';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function setup(
  unlockDelay = 5,
  profile: { software?: string; remoteControl?: boolean } = {},
): Promise<{ ur: VirtualUr; dash: DashboardClient }> {
  const ur = await VirtualUr.start({
    ports: { rtde: 0, dashboard: 0, secondary: 0, realtime: 0 },
    unlockDelay,
    ...profile,
  });
  cleanup.push(() => ur.stop());
  const dash = await DashboardClient.connect('127.0.0.1', ur.ports.dashboard);
  cleanup.push(() => dash.close());
  return { ur, dash };
}

describe('Dashboard client against the virtual controller', () => {
  it('reads the welcome line and parses queries into typed values', async () => {
    const { dash } = await setup();
    expect(dash.welcome).toMatch(/Universal Robots Dashboard Server/);
    expect(await dash.robotMode()).toBe('RUNNING');
    expect(await dash.safetyStatus()).toBe('NORMAL');
    expect(await dash.programState()).toEqual({ state: 'STOPPED', program: '<unnamed>' });
    expect(await dash.isInRemoteControl()).toBe(true);
    expect(await dash.polyscopeVersion()).toMatch(/^URSoftware 5\.11/);
    expect(await dash.command('fly')).toBe("could not understand: 'fly'");
  });

  it('replies in order to pipelined commands', async () => {
    const { dash } = await setup();
    const replies = await Promise.all([
      dash.robotMode(),
      dash.safetyStatus(),
      dash.command('get robot model'),
    ]);
    expect(replies).toEqual(['RUNNING', 'NORMAL', 'UR5']);
  });

  it('play, stop and load report refusals with the controller words', async () => {
    const { ur, dash } = await setup();
    await expect(dash.play()).rejects.toThrow(/Failed to execute: play/);
    const script = await ScriptConnection.open('127.0.0.1', ur.ports.realtime);
    cleanup.push(() => script.close());
    await script.send(renderControlProgram());
    await new Promise<void>((r) => ur.controller.once('event', () => r()));
    expect(await dash.programState()).toEqual({ state: 'PLAYING', program: 'parapush_control' });
    await dash.stop();
    expect((await dash.programState()).state).toBe('STOPPED');
    await expect(dash.stop()).rejects.toBeInstanceOf(DashboardRefusedError);
    await dash.play();
    expect((await dash.programState()).state).toBe('PLAYING');
    await expect(dash.load('missing.txt')).rejects.toThrow(/File not found/);
  });

  it('recovers from an emergency stop: power on, brake release', async () => {
    const { ur, dash } = await setup();
    ur.controller.injectEmergencyStop();
    expect(await dash.safetyStatus()).toBe('ROBOT_EMERGENCY_STOP');
    expect(await dash.robotMode()).toBe('POWER_OFF');
    await expect(dash.powerOn()).rejects.toBeInstanceOf(DashboardRefusedError);
    ur.controller.releaseEmergencyStop();
    await dash.closeSafetyPopup();
    await dash.powerOn();
    expect(await dash.robotMode()).toBe('IDLE');
    await dash.brakeRelease();
    expect(await dash.robotMode()).toBe('RUNNING');
  });

  it('refuses to unlock a protective stop until the delay has passed', async () => {
    const { ur, dash } = await setup(0.2);
    ur.controller.injectProtectiveStop();
    const err = await dash.unlockProtectiveStop().catch((e) => e);
    expect(err).toBeInstanceOf(DashboardRefusedError);
    expect((err as DashboardRefusedError).reply).toMatch(
      /^Cannot unlock protective stop until 0\.2s after occurrence/,
    );
    expect(await dash.safetyStatus()).toBe('PROTECTIVE_STOP');
    await new Promise((r) => setTimeout(r, 300));
    const released = new Promise<void>((r) =>
      ur.controller.on('event', (e) => e === 'protective stop released: robot running' && r()),
    );
    await dash.unlockProtectiveStop();
    // The reply says the release has started: until it is done the arm does not run.
    expect(await dash.robotMode()).toBe('IDLE');
    await released;
    expect(await dash.safetyStatus()).toBe('NORMAL');
    expect(await dash.robotMode()).toBe('RUNNING');
  });

  it('asks by software version: safetymode on a CB3, no Local mode there, remote control from 5.6', async () => {
    const cb3 = await setup(5, { software: '3.15' });
    expect(cb3.dash.software).toEqual({ major: 3, minor: 15 });
    cb3.ur.controller.injectProtectiveStop();
    expect(await cb3.dash.safetyStatus()).toBe('PROTECTIVE_STOP');
    expect(await cb3.dash.isInRemoteControl()).toBe(true);
    const early = await setup(5, { software: '5.4' });
    expect(await early.dash.safetyStatus()).toBe('NORMAL');
    expect(await early.dash.isInRemoteControl()).toBeUndefined();
    const local = await setup(5, { software: '5.11', remoteControl: false });
    expect(await local.dash.isInRemoteControl()).toBe(false);
  });

  it('reads the e-Series safety statuses 10-13 as what they are, not as a refusal', async () => {
    const { ur, dash } = await setup(5, { software: '5.11' });
    ur.controller.safetyMode = 12;
    expect(await dash.safetyStatus()).toBe('AUTOMATIC_MODE_SAFEGUARD_STOP');
    ur.controller.safetyMode = 13;
    expect(await dash.safetyStatus()).toBe('SYSTEM_THREE_POSITION_ENABLING_STOP');
    // A state beyond those is named as unknown, not passed off as a refusal.
    expect(() => parseSafetyStatus('Safetystatus: TP_THREE_POSITION_ENABLING_STOP')).toThrow(
      /unknown state TP_THREE_POSITION_ENABLING_STOP/,
    );
  });
});
