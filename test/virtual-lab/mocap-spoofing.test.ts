/**
 * The audit's attack on a supervised run in the virtual lab: a second sender on Motive's address
 * (helpers/natnet-spoofer.ts) copies the real frames 2^20 ahead with the object moved 0.44 m, and
 * sends them from its own port to the client's command socket and from Motive's own socket
 * (forged), with SERVERINFOs nobody asked for that name another multicast group. A run must refuse
 * to arm on such a stream, or stop with the reason that it may be spoofed; no pose the planner or
 * the supervisor reads may move; the real stream must flow on unbroken (the audit's client went
 * 2.58 s without frames); and no run may finish on the spoofer's frames.
 */
import { describe, expect, it } from 'vitest';
import { sceneRigidBodies } from '../../src-main/virtual-lab/natnet-server';
import type { LabLink } from '../../src-main/lab-link/lab-link';
import type { VirtualLab } from '../../src-main/virtual-lab/virtual-lab';
import { startSpoofer, type Spoofer } from '../helpers/natnet-spoofer';
import { labsPerTest, quickLabTask, runOnLab, speedCommands } from '../helpers/virtual-lab';
import { waitUntil } from '../helpers/wait-until';

const labs = labsPerTest();

/**
 * What the run's observers saw, frame by frame: the link's poses as its estimator judged each
 * frame (the planner's view; the supervisor's estimator in the safety thread judges the same
 * frames by the same rule), and the real frames taken.
 */
function watch(link: LabLink) {
  const seen = { frames: [] as number[], at: [] as number[], objectSteps: [] as number[] };
  let last: { x: number; y: number } | undefined;
  let newest: number | undefined;
  link.natnet.on('frame', (_f, s) => {
    const p = link.poses();
    if (!p || p.frameNumber !== s.frameNumber || s.frameNumber === newest) return;
    newest = s.frameNumber;
    seen.frames.push(s.frameNumber);
    seen.at.push(s.receivedAt);
    const o = p.sliders[0]!.pose;
    if (o && last) seen.objectSteps.push(Math.hypot(o.x - last.x, o.y - last.y));
    if (o) last = { x: o.x, y: o.y };
  });
  return seen;
}

function spoof(lab: VirtualLab, link: LabLink): Promise<Spoofer> {
  const object = sceneRigidBodies(lab.scene).find((b) => b.name === lab.scene.sliders[0]!.rigidBody)!;
  return startSpoofer({
    server: lab.natnet,
    client: link.natnet.localEndpoint,
    bodyId: object.id,
    shift: 0.44,
  });
}

/**
 * The real stream flowed through: every frame taken is the one after the one before (a client
 * that left the stream would miss the numbers Motive went on counting), and no silence of the
 * audit's kind (2.58 s). The bound is loose on purpose: this lab sends its frames from this
 * process's main thread, which a loaded two-core machine holds up for hundreds of ms.
 */
function expectUnbroken(seen: ReturnType<typeof watch>, from: number, to = seen.frames.length): void {
  const n = seen.frames.slice(from, to);
  const t = seen.at.slice(from, to);
  expect(n.length).toBeGreaterThan(30);
  expect(n.every((k, i) => i === 0 || k === n[i - 1]! + 1)).toBe(true);
  let gap = 0;
  for (let i = 1; i < t.length; i++) gap = Math.max(gap, t[i]! - t[i - 1]!);
  expect(gap, 'largest gap between real frames (s)').toBeLessThan(1);
}

describe('a second sender posing as Motive in the virtual lab', () => {
  it('keeps a run from arming, moves nothing, and the real stream flows on', async () => {
    const { lab, link } = await labs.labAndLink();
    const twists = speedCommands((f) => lab.ur.rtde.on('input', f));
    await waitUntil('fresh poses', () => link.poses()?.ok);
    const seen = watch(link);
    const spoofer = await spoof(lab, link);
    labs.closeAfter(() => spoofer.stop());
    await waitUntil('the spoofer at work', () => spoofer.sent.forged > 20);
    const result = await runOnLab({ link }, quickLabTask());
    const attacked = seen.frames.length;
    await spoofer.stop();

    expect(result.end).toEqual({ cause: 'not-armed' });
    const mocap = result.preflight.checks.find((c) => c.id === 'mocap')!;
    expect(mocap.ok).toBe(false);
    expect(mocap.reason).toMatch(/^may be spoofed: /);
    expect(result.actions).toBe(0);
    expect(twists).toHaveLength(0);
    // The object stood still, and so did its pose: not one 0.44 m copy was taken.
    expect(Math.max(...seen.objectSteps)).toBeLessThan(0.001);
    expectUnbroken(seen, 0, attacked);
    expect(link.natnet.getStats().spoofSigns).toBeGreaterThan(20);
    expect(link.natnet.getStats().olderFrames).toBe(0);
  });

  it('stops a run mid-push with the spoofing reason; the poses it pushed on never jump', async () => {
    const { lab, link } = await labs.labAndLink();
    await waitUntil('fresh poses', () => link.poses()?.ok);
    const seen = watch(link);
    let spoofer: Spoofer | undefined;
    let from = 0;
    const result = await runOnLab({ link }, quickLabTask(), {
      onStep: () => {
        if (spoofer) return;
        from = seen.frames.length;
        // While the first control executes.
        void spoof(lab, link).then((s) => {
          spoofer = s;
          labs.closeAfter(() => s.stop());
        });
      },
    });
    const to = seen.frames.length;
    expect(spoofer, 'the attack began during the run').toBeDefined();
    await spoofer!.stop();

    expect(result.end, result.reason).toEqual({ cause: 'safety-stop' });
    expect(result.supervisor.stopReason?.code).toBe('mocap-suspect');
    expect(result.reason).toMatch(/^Motion capture may be spoofed: /);
    // Pushed at most at the scene's speed: no step between two frames anywhere near 0.44 m.
    expect(Math.max(...seen.objectSteps)).toBeLessThan(0.01);
    await waitUntil('frames after the stop', () => seen.frames.length > to + 30);
    expectUnbroken(seen, from);
  });
});
