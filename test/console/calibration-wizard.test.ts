/**
 * The Setup view's calibration wizard through the console core, on the in-process virtual lab:
 * captures read the live lab (and refuse untracked or stale sources with the reason), fits give
 * the residual per pair, and a save writes the lab's setup file and turns up in the pre-flight
 * checklist at once.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCommandResult, type CalibrationWizardState } from '#contract/console-api';
import { loadSceneFile } from '../../src-main/common/config-files';
import {
  captureMocapPoint,
  captureRobotPoint,
  type CaptureLink,
} from '../../src-main/console/calibration-capture';
import { CalibrationWizard } from '../../src-main/console/calibration-wizard';
import { ConsoleCore } from '../../src-main/console/console-core';
import { LabStatusSource } from '../../src-main/lab-link/lab-status';
import { VirtualLabConnection } from '../../src-main/lab-link/virtual-lab-connection';
import { loadCalibration, mocapPoint } from '../../src-main/calibration/mocap-table';
import { monotonicSeconds } from '../../src-main/common/clock';
import type { Vec3 } from '../../src-main/common/rotation';
import type { MocapSnapshot, PlanarPoses } from '../../src-main/mocap/scene-binding';
import type { LabLink } from '../../src-main/lab-link/lab-link';
import { setupSchema } from '../../src-main/calibration/setup-file';
import { repoRoot } from '../helpers/scenes';

const scene = loadSceneFile(path.join(repoRoot, 'test/fixtures/lab-short-scene.json'));

/** A link with scripted motion-capture frames, for the refusals that a healthy lab never shows. */
function scriptedLink(status: PlanarPoses['pusher']['status'] | null, rigidBody: string | null = 'pusher') {
  const listeners: ((f: unknown, s: MocapSnapshot) => void)[] = [];
  const pusher = { status, age: status === 'stale' ? 0.25 : 0 } as PlanarPoses['pusher'];
  const link = {
    scene: { ...scene, pusher: { ...scene.pusher, rigidBody: rigidBody ?? undefined } },
    // No pivot offsets: the pusher's point is its body's streamed position.
    setup: { mocap: { upAxis: 'y' } },
    poses: () => (status === null ? undefined : ({ pusher, sliders: [] } as unknown as PlanarPoses)),
    natnet: {
      on: (_e: string, fn: (f: unknown, s: MocapSnapshot) => void) => {
        listeners.push(fn);
        return () => listeners.splice(listeners.indexOf(fn), 1);
      },
    },
  } as unknown as CaptureLink;
  const frame = (position: Vec3, trackingValid = true): void => {
    const snapshot: MocapSnapshot = {
      frameNumber: 1,
      receivedAt: monotonicSeconds(),
      rigidBodies: [
        { id: 1, name: 'pusher', position, orientation: [0, 0, 0, 1], meanError: 0, trackingValid },
      ],
    };
    for (const l of [...listeners]) l({}, snapshot);
  };
  return { link, frame };
}

describe('motion-capture capture refusals', () => {
  const fast = { duration: 0.05, minFrames: 3 };

  it('refuses with the reason when the pusher is untracked, stale, unbound or never seen', async () => {
    await expect(captureMocapPoint(scriptedLink('untracked').link, fast)).rejects.toThrow(
      'pusher rigid body "pusher" is untracked',
    );
    await expect(captureMocapPoint(scriptedLink('stale').link, fast)).rejects.toThrow(
      /is stale, last seen 250 ms ago/,
    );
    await expect(captureMocapPoint(scriptedLink('ok', null).link, fast)).rejects.toThrow(
      /binds no motion-capture rigid body/,
    );
    await expect(captureMocapPoint(scriptedLink(null).link, fast)).rejects.toThrow(/no motion-capture frame/);
  });

  it('refuses when frames stop, tracking drops or the marker moves within the window', async () => {
    const silent = scriptedLink('ok');
    await expect(captureMocapPoint(silent.link, fast)).rejects.toThrow(
      /only 0 frame\(s\) in 50 ms: the stream is stale/,
    );

    const lost = scriptedLink('ok');
    const lostCapture = captureMocapPoint(lost.link, fast);
    for (let i = 0; i < 5; i++) lost.frame([0.1, 0.2, 0.3], i !== 2);
    await expect(lostCapture).rejects.toThrow(/untracked in 1 frame/);

    const moving = scriptedLink('ok');
    const movingCapture = captureMocapPoint(moving.link, fast);
    for (let i = 0; i < 5; i++) moving.frame([0.1 + i * 0.002, 0.2, 0.3]);
    await expect(movingCapture).rejects.toThrow(/the pusher moved 4\.0 mm/);
  });

  it('averages the raw position over the window', async () => {
    const good = scriptedLink('ok');
    const capture = captureMocapPoint(good.link, fast);
    good.frame([0.1, 0.2, 0.3]);
    good.frame([0.1002, 0.2, 0.3]);
    good.frame([0.1004, 0.2, 0.3]);
    const p = await capture;
    expect(p[0]).toBeCloseTo(0.1002, 9);
    expect(p[1]).toBeCloseTo(0.2, 9);
  });

  it('refuses a robot state that is missing or stale', () => {
    const link = (latest: unknown, linkUp = true) =>
      ({
        robot: { latest, linkUp },
        setup: { robot: { pusherOffset: [0, 0, 0.15] } },
      }) as unknown as CaptureLink;
    expect(() => captureRobotPoint(link(undefined))).toThrow('no robot state received yet');
    expect(() => captureRobotPoint(link(undefined, false))).toThrow(/RTDE link to the UR5 is down/);
    expect(() =>
      captureRobotPoint(link({ receivedAt: monotonicSeconds() - 0.5, tcpPose: [0, 0, 0, 0, 0, 0] })),
    ).toThrow(/robot state is stale: none for 5\d\d ms/);
  });
});

describe('calibration wizard on the virtual lab', () => {
  const session = new VirtualLabConnection({ inProcess: true });
  let link: LabLink;
  /** The measurement the injected capture source returns next. */
  let next: { mocap: Vec3; robot: Vec3 } = { mocap: [0, 0, 0], robot: [0, 0, 0] };
  let core: ConsoleCore;
  let connections: LabStatusSource;

  const send = async <
    T extends 'calibration.capture' | 'calibration.fit' | 'calibration.save' | 'calibration.get',
  >(
    command: { type: T } & Record<string, unknown>,
  ): Promise<CalibrationWizardState> =>
    (parseCommandResult(command.type, await core.handle(command)) as { calibration: CalibrationWizardState })
      .calibration;

  beforeAll(async () => {
    link = await session.linkFor(scene);
    const wizard = new CalibrationWizard({
      session: () => session,
      captures: {
        mocap: async () => next.mocap,
        robot: async () => next.robot,
        body: () => Promise.reject(new Error('this test measures no pivot')),
      },
    });
    connections = new LabStatusSource(
      {
        currentConnection: () => session,
        runningWorkers: () => 0,
        workersStarted: () => false,
        workers: 1,
        onChange: () => () => undefined,
      },
      0.05,
    );
    core = new ConsoleCore({
      scenesDir: path.join(repoRoot, 'resources/scenes'),
      calibration: wizard,
      connections,
    });
  });

  afterAll(async () => {
    core.dispose();
    connections.dispose();
    await session.close();
  });

  it('captures the live pusher where the virtual lab holds it, in both frames', async () => {
    const truth = setupSchema.parse(session.lab()!.setup);
    const deadline = Date.now() + 10_000;
    while (link.poses()?.pusher.status !== 'ok' || !link.robot.latest) {
      if (Date.now() > deadline) throw new Error('the virtual lab never streamed the pusher');
      await new Promise((r) => setTimeout(r, 20));
    }
    const pose = link.poses()!.pusher;
    const raw = await captureMocapPoint(link);
    // The raw position is what Motive sees of the pusher: the true calibration maps it back.
    const expected = mocapPoint(truth.mocap, [pose.pose!.x, pose.pose!.y, pose.z!]);
    expect(Math.hypot(...raw.map((v, k) => v - expected[k]!))).toBeLessThan(0.001);
    // The robot's pusher point is the scene's pusher start, carried into the base frame.
    const base = captureRobotPoint(link);
    const cal = truth.robot.calibration as { yaw: number; offset: Vec3 };
    const { x, y } = scene.pusher!.position;
    const c = Math.cos(cal.yaw);
    const s = Math.sin(cal.yaw);
    expect(base[0]).toBeCloseTo(c * x - s * y + cal.offset[0], 3);
    expect(base[1]).toBeCloseTo(s * x + c * y + cal.offset[1], 3);
  });

  it('judges a jog on the table first: clear away from the object, asks towards it, moves nothing unasked', async () => {
    // The setup's table -> base rotation turns a table direction into the base axes a jog takes.
    const { yaw } = link.setup.robot.calibration as { yaw: number };
    const base = (dx: number, dy: number) => ({
      dx: Math.cos(yaw) * dx - Math.sin(yaw) * dy,
      dy: Math.sin(yaw) * dx + Math.cos(yaw) * dy,
    });
    const check = async (dx: number, dy: number) =>
      parseCommandResult(
        'calibration.jog-check',
        await core.handle({ type: 'calibration.jog-check', ...base(dx, dy) }),
      ).check;
    // The pusher (r 14.5 mm) stands at (-170, 0) mm, 19 mm from the object's edge (at -100 mm, r 51 mm).
    expect(await check(-0.01, 0)).toEqual({ verdict: 'clear', message: null });
    expect(await check(0, 0.02)).toEqual({ verdict: 'clear', message: null });
    expect(await check(0.01, 0)).toMatchObject({
      verdict: 'confirm',
      message: expect.stringMatching(
        /^the jog's path from \(-170, 0\) to \(-160, 0\) mm crosses object object/,
      ),
    });
    const tool = () => link.robot.latest!.tcpPose.slice(0, 2);
    const before = tool();
    const r = await core.handle({ type: 'calibration.jog', ...base(0.01, 0) });
    expect(r).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^jog not started: .*crosses object object.*; confirm to jog anyway$/),
    });
    const after = tool();
    expect(Math.hypot(after[0]! - before[0]!, after[1]! - before[1]!)).toBeLessThan(0.0005);
  });

  it('gives the library errors for too few or collinear points, and saves a good fit into the setup', async () => {
    const truth = setupSchema.parse(session.lab()!.setup);
    const tablePoints: Vec3[] = [
      [-0.3, -0.2, 0],
      [0.3, -0.2, 0],
      [0.3, 0.2, 0],
      [-0.3, 0.2, 0],
    ];
    // Known measurement errors (m) so the residuals are known: pair 2 is the worst.
    const bumps = [0.0004, -0.0004, 0.0012, -0.0004];
    const capture = async (i: number) => {
      const m = mocapPoint(truth.mocap, tablePoints[i]!);
      next = { ...next, mocap: [m[0] + bumps[i]!, m[1], m[2]] };
      return send({ type: 'calibration.capture', stage: 'mocap', table: tablePoints[i]! });
    };
    await capture(0);
    await capture(1);
    const twoPairs = await core.handle({ type: 'calibration.fit', stage: 'mocap', kind: '3d' });
    expect(twoPairs).toEqual({ ok: false, error: 'need at least 3 point pairs, got 2' });

    // A third point on the line through the first two.
    const m = mocapPoint(truth.mocap, [0, -0.2, 0]);
    next = { ...next, mocap: m };
    await send({ type: 'calibration.capture', stage: 'mocap', table: [0, -0.2, 0] });
    const collinear = await core.handle({ type: 'calibration.fit', stage: 'mocap', kind: '2d' });
    expect(collinear).toMatchObject({ ok: false, error: expect.stringMatching(/lie on a line/) });
    await core.handle({ type: 'calibration.remove', stage: 'mocap', index: 2 });

    const saveUnfitted = await core.handle({ type: 'calibration.save', stage: 'mocap' });
    expect(saveUnfitted).toEqual({ ok: false, error: 'fit the calibration before saving it' });

    await capture(2);
    const captured = await capture(3);
    expect(captured.mocap.pairs.map((p) => p.table)).toEqual(tablePoints);
    const fitted = await send({ type: 'calibration.fit', stage: 'mocap', kind: '2d' });
    const fit = fitted.mocap.fit!;
    expect(fit.worst).toBe(2);
    expect(fit.rms).toBeGreaterThan(0.0002);
    expect(fit.rms).toBeLessThan(0.003);
    expect(fit.max).toBeCloseTo(Math.max(...fit.errors), 12);
    expect(fitted.limit).toBe(0.003);

    const before = connections.current().preflight!.checks.find((c) => c.id === 'calibration')!;
    expect(before.reason).toBe('residual 0.0 mm (limit 3.0 mm)');
    const saved = await send({ type: 'calibration.save', stage: 'mocap' });
    expect(saved.mocap.saved?.file).toBe(session.setupFile);
    const onDisk = setupSchema.parse(JSON.parse(readFileSync(session.setupFile!, 'utf8')));
    expect(onDisk.mocap.residual.rms).toBeCloseTo(fit.rms, 12);
    expect(onDisk.mocap.kind).toBe('2d');
    const perSetup = loadCalibration(
      path.join(path.dirname(session.setupFile!), 'calibrations'),
      'virtual-lab',
    );
    expect(perSetup.residual.rms).toBeCloseTo(fit.rms, 12);
    const after = connections.current().preflight!.checks.find((c) => c.id === 'calibration')!;
    expect(after.reason).toBe(`residual ${(fit.rms * 1000).toFixed(1)} mm (limit 3.0 mm)`);
    expect(after.ok).toBe(true);
  });

  it('fits the robot base planar from the same table points and saves yaw and offset', async () => {
    const yaw = 0.2;
    const offset: Vec3 = [0.05, -0.45, 0.004];
    const toBase = ([x, y]: Vec3): Vec3 => [
      Math.cos(yaw) * x - Math.sin(yaw) * y + offset[0],
      Math.sin(yaw) * x + Math.cos(yaw) * y + offset[1],
      offset[2],
    ];
    const points: Vec3[] = [
      [-0.3, -0.2, 0],
      [0.3, -0.2, 0],
      [0, 0, 0],
    ];
    for (const p of points) {
      next = { ...next, robot: toBase(p) };
      await send({ type: 'calibration.capture', stage: 'robot', table: p });
    }
    const threeD = await core.handle({ type: 'calibration.fit', stage: 'robot', kind: '3d' });
    expect(threeD).toMatchObject({ ok: false, error: expect.stringMatching(/planar/) });
    const fitted = await send({ type: 'calibration.fit', stage: 'robot', kind: '2d' });
    expect(fitted.robot.fit!.rms).toBeLessThan(1e-9);
    await send({ type: 'calibration.save', stage: 'robot' });
    const onDisk = setupSchema.parse(JSON.parse(readFileSync(session.setupFile!, 'utf8')));
    const cal = onDisk.robot.calibration as { yaw: number; offset: Vec3 };
    expect(cal.yaw).toBeCloseTo(yaw, 9);
    cal.offset.forEach((v, k) => expect(v).toBeCloseTo(offset[k]!, 9));
    expect(link.setup.robot.calibration).toEqual(cal);
    // The mocap fit saved before is kept.
    expect(onDisk.mocap.kind).toBe('2d');
  });

  it('refuses to save a fit above the residual limit', async () => {
    await core.handle({ type: 'calibration.clear', stage: 'robot' });
    const bad: Vec3[] = [
      [0, 0, 0],
      [0.1, 0, 0],
      [0, 0.1, 0],
    ];
    const measured: Vec3[] = [
      [0, 0, 0],
      [0.11, 0, 0],
      [0, 0.09, 0],
    ];
    for (const [i, p] of bad.entries()) {
      next = { ...next, robot: measured[i]! };
      await send({ type: 'calibration.capture', stage: 'robot', table: p });
    }
    await send({ type: 'calibration.fit', stage: 'robot', kind: '2d' });
    const r = await core.handle({ type: 'calibration.save', stage: 'robot' });
    expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/above the limit 3\.0 mm/) });
  });
});
