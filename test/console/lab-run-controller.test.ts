/**
 * The console's run controller against the in-process virtual lab, through the real console core:
 * dry runs plan and stream to the console, Esc stops the arm (through the safety thread) within 10 ms of reaching the core,
 * and a real run moves nothing before green pre-flight checks and the operator's arm command.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { monotonicSeconds } from '../../src-main/common/clock';
import { parseCommandResult, type ConsoleEvent } from '#contract/console-api';
import type { ConsoleCore } from '../../src-main/console/console-core';
import type { LabRunController } from '../../src-main/console/lab-run-controller';
import { VirtualLabConnection } from '../../src-main/lab-link/virtual-lab-connection';
import type { InputWrite } from '../../src-main/virtual-lab/virtual-ur/rtde-server';
import { CommandCode, INPUT_NAMES } from '../../src-main/robot/registers';
import { initialState, type State } from '#contract/state';
import { ConsoleOnLab, fastDryRun } from '../helpers/console-on-lab';

const fast = fastDryRun(3);

const session = new VirtualLabConnection({ inProcess: true });
let consoleOnLab: ConsoleOnLab | undefined;
let controller: LabRunController;
let core: ConsoleCore;
let events: ConsoleEvent[];
let command: ConsoleOnLab['command'];
let lastRun: ConsoleOnLab['lastRun'];
let until: ConsoleOnLab['until'];

/** A fresh console on the shared virtual lab, with real runs going to `realLab`. */
async function build(realLab: VirtualLabConnection | null): Promise<void> {
  await consoleOnLab?.dispose();
  consoleOnLab = new ConsoleOnLab({ virtualLab: session, realLab });
  ({ controller, core, events, command, lastRun, until } = consoleOnLab);
}

/** Every command the virtual controller decodes, with its arrival time (s, common/clock). */
function commandsOnWire(): { code: number; at: number }[] {
  const seen: { code: number; at: number }[] = [];
  session.lab()!.ur.rtde.on('input', (w: InputWrite) => {
    const i = w.names.indexOf(INPUT_NAMES.command);
    if (i >= 0) seen.push({ code: w.values[i] as number, at: w.receivedAt });
  });
  return seen;
}

async function buildWithScene(realLab: VirtualLabConnection | null): Promise<void> {
  await build(realLab);
  await command({ type: 'scene.load', file: 'isrr-obstacle.json' });
  await command({ type: 'settings.set', settings: fast });
}

beforeAll(() => buildWithScene(null));

afterEach(async () => {
  await core.handle({ type: 'run.abort', source: 'remote' });
  await until('the run to end', () => controller.runningWorkers() === 0);
  events.length = 0;
});

afterAll(async () => {
  await consoleOnLab?.dispose();
  await session.close();
});

describe('dry runs on the virtual lab', () => {
  it('plans, streams live state, and writes the stop on the call stack of the Esc command', async () => {
    await command({ type: 'run.start', mode: 'dry' });
    const wire = commandsOnWire();
    const step = await until('a planner step', () => events.find((e) => e.type === 'planner-step'));
    expect(step.type === 'planner-step' && step.step.predictions.length).toBeGreaterThan(0);
    expect(lastRun()).toMatchObject({ phase: 'running', mode: 'dry', armed: true, safety: 'safe' });
    // The arm is executing the first control now: speed commands are on the wire.
    await until('a speed command', () => wire.some((c) => c.code === CommandCode.SPEED));
    const state = await until('live state', () => events.find((e) => e.type === 'state'));
    expect(state.type === 'state' && state.state.length).toBe(
      step.type === 'planner-step' ? step.step.start.length : -1,
    );
    const preflight = events.find((e) => e.type === 'preflight' && e.report?.ok);
    expect(preflight).toBeDefined();

    // Spy on the way to the safety thread: the abort must leave for the run's supervisor there on
    // the abort command's own call stack (the thread writes the stop on receiving it).
    // (common/worker-thread.ts's post() is where every message to the thread leaves.)
    const worker = (session.current()!.safety as unknown as { worker: { post(m: unknown): void } }).worker;
    const aborts: number[] = [];
    const postOriginal = worker.post;
    worker.post = (m: unknown) => {
      if ((m as { type?: string }).type === 'abort') aborts.push(monotonicSeconds());
      postOriginal.call(worker, m);
    };
    const t0 = monotonicSeconds();
    const pending = core.handle({ type: 'run.abort', source: 'escape-key' });
    const t1 = monotonicSeconds();
    const response = await pending;
    worker.post = postOriginal;
    expect(aborts.filter((t) => t >= t0 && t <= t1)).toHaveLength(1);
    const stop = await until('the stop on the wire', () =>
      wire.find((c) => c.code === CommandCode.STOP && c.at >= t0),
    );
    // Typically 2-4 ms; the in-process controller reads it when this process's event loop comes
    // round, so a descheduled process (two shared cores) can take longer: the bench
    // (npm run bench -- console-abort) measures the distribution against the 10 ms target.
    const latency = stop.at - t0;
    expect(
      latency,
      `stop reached the virtual controller ${(latency * 1000).toFixed(2)} ms after the abort`,
    ).toBeLessThan(0.05);
    expect(response.ok && parseCommandResult('run.abort', response).status).toMatchObject({
      phase: 'aborted',
      reason: 'Aborted by operator',
      safety: 'stopped',
    });
    expect(
      events.some(
        (e) => e.type === 'supervisor' && e.decision === 'stop' && e.reason === 'Aborted by operator',
      ),
    ).toBe(true);
    await until('the run to end', () => controller.runningWorkers() === 0);
    expect(lastRun()).toMatchObject({ phase: 'aborted', reason: 'Aborted by operator', armed: false });
  });

  it('keeps its fine workers warm from one run to the next: a second run starts none', async () => {
    await command({ type: 'run.start', mode: 'dry' });
    await until('a planner step', () => events.find((e) => e.type === 'planner-step'));
    const pool = controller.finePool();
    const workers = pool.pids();
    expect(workers).toHaveLength(controller.workers);
    await core.handle({ type: 'run.abort', source: 'remote' });
    await until('the run to end', () => controller.runningWorkers() === 0);
    events.length = 0;
    await command({ type: 'run.start', mode: 'dry' });
    await until('a planner step', () => events.find((e) => e.type === 'planner-step'));
    // The same processes, none replaced or added: the second run compiled nothing and started nothing.
    expect(controller.finePool()).toBe(pool);
    expect(pool.pids()).toEqual(workers);
    expect(pool.replacements).toBe(0);
  });

  it('reports the live lab: OptiTrack frames, UR5 modes, the gripper and a pre-flight checklist', async () => {
    const status = await until('connected links', () => {
      const s = core.snapshot();
      return s.connections.find((c) => c.id === 'optitrack')?.state === 'connected' && s;
    });
    const by = Object.fromEntries(status.connections.map((c) => [c.id, c]));
    expect(by['optitrack']!.detail).toMatch(/frames\/s, 0 dropped/);
    expect(by['ur5']).toMatchObject({ state: 'connected' });
    expect(by['ur5']!.detail).toMatch(/robot RUNNING, safety NORMAL, program playing/);
    expect(by['gripper']!.detail).toMatch(/pusher held/);
    // Between runs the workers that earlier runs started stay up, warm for the next.
    expect(by['workers']).toMatchObject({ state: 'connected' });
    expect(by['workers']!.detail).toMatch(/warm for the next run/);
    expect(status.preflight?.checks.map((c) => c.id)).toEqual([
      'mocap',
      'mocap-interface',
      'mocap-axes',
      'robot-mode',
      'safety-mode',
      'program',
      'pusher-held',
      'calibration',
      'scene',
      'speed-slider',
      'reach',
      'force-limit',
      'pivots',
      'calibration-agreement',
    ]);
    // The gripper really held the pusher in the run before: the checklist is green.
    expect(status.preflight?.ok).toBe(true);
  });

  it('refuses real runs when no real lab is configured, with the reason', async () => {
    const real = await core.handle({ type: 'run.start', mode: 'real' });
    expect(real).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^No real lab is configured.*--lab/),
    });
    expect(core.snapshot().realRun).toMatch(/^No real lab is configured/);
    expect(await core.handle({ type: 'run.arm' })).toMatchObject({ ok: false });
  });

  it("puts the objects back on the scene's start poses before every dry run", async () => {
    // A first run pushes the slider off its start.
    await command({ type: 'run.start', mode: 'dry' });
    await until('the run to end', () => ['finished', 'failed'].includes(lastRun()?.phase ?? ''), 60_000);
    const world = session.lab()!.world;
    const start = initialState(session.lab()!.scene);
    const moved = world.snapshot();
    const shift = (x: State): number => {
      const a = world.layout.sliderPose(x, 0);
      const b = world.layout.sliderPose(start, 0);
      return Math.hypot(a.x - b.x, a.y - b.y);
    };
    expect(shift(moved)).toBeGreaterThan(0.005);
    expect(world.layout.pusherPosition(moved)).not.toEqual(world.layout.pusherPosition(start));
    events.length = 0;

    await command({ type: 'run.start', mode: 'dry' });
    const step = await until('a planner step', () => events.find((e) => e.type === 'planner-step'));
    expect(events.some((e) => e.type === 'log' && /start poses/.test(e.message))).toBe(true);
    // The planner started from the scene's slider pose, as motion capture saw it (noise < 1 mm).
    if (step.type !== 'planner-step') throw new Error('not a planner step');
    const observed = Float64Array.from(step.step.start);
    expect(shift(observed)).toBeLessThan(0.001);
    // The arm brought the pusher back to its start too (it had followed the slider).
    const [px, py] = world.layout.pusherPosition(observed);
    const [sx, sy] = world.layout.pusherPosition(start);
    expect(Math.hypot(px - sx, py - sy)).toBeLessThan(0.002);
  });

  it('pauses after the current action with the arm still, and resumes planning', async () => {
    await command({ type: 'run.start', mode: 'dry' });
    const wire = commandsOnWire();
    await until('a planner step', () => events.some((e) => e.type === 'planner-step'));
    await command({ type: 'run.pause' });
    expect(lastRun()).toMatchObject({ phase: 'paused' });
    // The action under way ends (its 1 s control); then nothing moves and nothing is planned.
    const lastSpeed = (): number => wire.findLast((c) => c.code === CommandCode.SPEED)?.at ?? 0;
    await until('the action to end', () => lastSpeed() > 0 && monotonicSeconds() - lastSpeed() > 0.2);
    const held = wire.length;
    const steps = events.filter((e) => e.type === 'planner-step').length;
    await new Promise((r) => setTimeout(r, 600));
    expect(wire.slice(held).filter((c) => c.code === CommandCode.SPEED)).toHaveLength(0);
    expect(events.filter((e) => e.type === 'planner-step')).toHaveLength(steps);
    expect(lastRun()).toMatchObject({ phase: 'paused', safety: 'safe', armed: true });

    await command({ type: 'run.resume' });
    expect(lastRun()).toMatchObject({ phase: 'running' });
    await until(
      'the next planner step',
      () => events.filter((e) => e.type === 'planner-step').length > steps,
    );
  });
});

describe('real runs (the virtual lab standing in for a configured lab)', () => {
  beforeAll(() => buildWithScene(session));

  it('waits for green checks and the arm command before anything moves', async () => {
    await command({ type: 'run.start', mode: 'real' });
    const wire = commandsOnWire();
    await until('the arm prompt', () => lastRun()?.awaitingArm);
    expect(lastRun()).toMatchObject({ phase: 'starting', mode: 'real', armed: false });
    expect(lastRun()?.reason).toMatch(/^Waiting for Arm/);
    expect(events.some((e) => e.type === 'preflight' && e.report?.ok === true)).toBe(true);
    // Half a second of waiting: no speed command, no planner step, the supervisor not armed.
    await new Promise((r) => setTimeout(r, 500));
    expect(wire.filter((c) => c.code === CommandCode.SPEED)).toHaveLength(0);
    expect(events.some((e) => e.type === 'planner-step')).toBe(false);

    // The object's markers lost while the run waits: Arm is refused with the red check, and the
    // run keeps waiting; once the markers are back, the same Arm is taken.
    session.lab()!.natnet.setFaults({ lostTracking: ['object'] });
    await until('the red check', () =>
      events.some(
        (e) =>
          e.type === 'preflight' &&
          e.report?.checks.some((c) => c.id === 'mocap' && !c.ok && c.reason.includes('object: untracked')),
      ),
    );
    const refused = await core.handle({ type: 'run.arm' });
    expect(refused).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Arm refused: 1 pre-flight check\(s\) red: Motion capture fresh/),
    });
    expect(lastRun()).toMatchObject({ phase: 'starting', armed: false, awaitingArm: true });
    session.lab()!.natnet.setFaults({});
    const cleared = events.length;
    await until('the check green again', () =>
      events
        .slice(cleared)
        .some((e) => e.type === 'preflight' && e.report?.checks.find((c) => c.id === 'mocap')?.ok),
    );
    await command({ type: 'run.arm' });
    await until('armed and running', () => lastRun()?.phase === 'running' && lastRun()?.armed);
    await until('a planner step', () => events.some((e) => e.type === 'planner-step'));
    await core.handle({ type: 'run.abort', source: 'button' });
    await until('the run to end', () => controller.runningWorkers() === 0);
    expect(lastRun()).toMatchObject({ phase: 'aborted', reason: 'Aborted by operator' });
  });

  it('ends an unarmed run on abort without arming', async () => {
    await command({ type: 'run.start', mode: 'real' });
    await until('the arm prompt', () => lastRun()?.awaitingArm);
    await core.handle({ type: 'run.abort', source: 'space-key' });
    await until('the run to end', () => controller.runningWorkers() === 0);
    expect(lastRun()).toMatchObject({ phase: 'aborted', reason: 'Aborted by operator', armed: false });
    expect(events.some((e) => e.type === 'supervisor' && e.reason.startsWith('Armed'))).toBe(false);
    expect(await core.handle({ type: 'run.arm' })).toMatchObject({ ok: false });
  });
});
