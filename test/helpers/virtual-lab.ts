/**
 * The virtual lab as tests of supervised runs use it: started on free ports (unicast NatNet) with a
 * LabLink connected as a run would, closed after the test that started it, a quick task and a
 * supervised run on it (recorded or not), and the STOP commands on the wire.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monotonicSeconds } from '../../src-main/common/clock';
import { afterEach } from 'vitest';
import { VirtualLab, type LabConfigInput } from '../../src-main/virtual-lab/virtual-lab';
import type { InputWrite } from '../../src-main/virtual-lab/virtual-ur/rtde-server';
import { loadTaskFile, type Task } from '../../src-main/planning/task-file';
import { CommandCode, INPUT_NAMES } from '../../src-main/robot/registers';
import { LabLink, loopbackLabAddress } from '../../src-main/lab-link/lab-link';
import { Ur5Connection } from '../../src-main/robot/ur5-connection';
import type { SupervisedRunResult } from '../../src-main/run/supervised-run';
import { plannerSettingsOf, RunRecorder } from '../../src-main/run/run-recorder';
import type { ModelRequest } from '../../src-main/parareal/model-choice';
import { ownedRun, type OwnedRunOptions } from './owned-run';
import { loadSetup } from '../../src-main/calibration/setup-file';
import { FREE_LAB_PORTS } from './lab-config';
import { repoRoot } from './scenes';

/** isrr-obstacle made quick: a straight push to a near goal, few rollouts, at most `maxExecutedActions`. */
export function quickLabTask(maxExecutedActions = 6): Task {
  const base = loadTaskFile(path.join(repoRoot, 'resources/tasks/isrr-obstacle.json')).task;
  return {
    ...base,
    costs: [{ term: 'goal-distance', weight: 100 }],
    planner: {
      ...base.planner,
      horizon: 2,
      optimizer: { ...base.planner.optimizer, rollouts: 4, maxIterations: 1 },
      maxExecutedActions,
    },
  };
}

/** wafr-clutter's task (a gripper) made quick: MPC, two controls, four rollouts, at most `maxExecutedActions`. */
export function quickGraspTask(maxExecutedActions: number): Task {
  const base = loadTaskFile(path.join(repoRoot, 'resources/tasks/wafr-clutter.json')).task;
  return {
    ...base,
    planner: {
      ...base.planner,
      kind: 'mpc',
      horizon: 2,
      optimizer: { ...base.planner.optimizer, rollouts: 4, maxIterations: 1 },
      maxExecutedActions,
    },
  };
}

/**
 * The SPEED commands (the arm told to move) among the RTDE input packages the virtual controller
 * decodes from now on, in this process or in the lab's thread: `subscribe` hands it each package.
 */
export function speedCommands<W extends { names: readonly string[]; values: readonly unknown[] }>(
  subscribe: (listener: (w: W) => void) => unknown,
): W[] {
  const speeds: W[] = [];
  subscribe((w) => {
    if (w.values[w.names.indexOf(INPUT_NAMES.command)] === CommandCode.SPEED) speeds.push(w);
  });
  return speeds;
}

/** When the virtual controller decoded each STOP command from now on, s (common/clock). */
export function stopCommandTimes(ur: {
  rtde: { on(e: 'input', f: (w: InputWrite) => void): unknown };
}): number[] {
  const at: number[] = [];
  ur.rtde.on('input', (w) => {
    const i = w.names.indexOf(INPUT_NAMES.command);
    if (i >= 0 && w.values[i] === CommandCode.STOP) at.push(w.receivedAt);
  });
  return at;
}

/**
 * Starts the virtual lab as the tests run it: `test/fixtures/lab-short-scene.json` on free ports,
 * NatNet unicast, a quick unlock, a noiseless world seeded 1; `config`'s keys replace these.
 */
export function startVirtualLab(config: LabConfigInput = {}): Promise<VirtualLab> {
  return VirtualLab.start({
    scene: path.join(repoRoot, 'test/fixtures/lab-short-scene.json'),
    ports: FREE_LAB_PORTS,
    mocap: { multicast: false },
    robot: { unlockDelay: 0.3 },
    world: { noiseVariance: 0, seed: 1 },
    ...config,
  });
}

export interface LabAndLink {
  lab: VirtualLab;
  link: LabLink;
  /** Closes the link, then stops the lab. */
  close(): Promise<void>;
}

/** Starts the virtual lab (startVirtualLab) and connects a LabLink to it, as a run would. */
export async function startLabAndLink(config: LabConfigInput = {}): Promise<LabAndLink> {
  const lab = await startVirtualLab(config);
  const setupFile = lab.writeSetup(path.join(mkdtempSync(path.join(os.tmpdir(), 'setup-')), 'lab.json'));
  const link = await LabLink.connect(loopbackLabAddress(lab.ports), lab.scene, loadSetup(setupFile));
  return {
    lab,
    link,
    close: async () => {
      await link.close();
      await lab.stop();
    },
  };
}

/**
 * Labs for the tests of one file, each closed after the test that started it (this registers the
 * afterEach: call it at the top of the file). What a test opens on a lab (`closeAfter`) is closed
 * before the lab, the last opened first.
 */
export function labsPerTest() {
  const closers: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  return {
    /** A lab and a LabLink connected to it (startLabAndLink). */
    async labAndLink(config: LabConfigInput = {}): Promise<LabAndLink> {
      const env = await startLabAndLink(config);
      closers.push(env.close);
      return env;
    },
    /** A lab alone (startVirtualLab), for tests that connect its devices themselves. */
    async lab(config: LabConfigInput = {}): Promise<VirtualLab> {
      const lab = await startVirtualLab(config);
      closers.push(() => lab.stop());
      return lab;
    },
    /** Something the test opened, closed after it (before the labs it was opened on). */
    closeAfter(close: () => Promise<void> | void): void {
      closers.push(close);
    },
  };
}

/**
 * A supervised run on the lab's link as the lab tests run it, on a run owner of its own
 * (helpers/owned-run.ts): the analytical coarse model and one fine worker; `more` adds to or
 * replaces these.
 */
export function runOnLab(
  env: { link: LabLink },
  task: Task,
  more: Partial<Omit<OwnedRunOptions, 'link' | 'task'>> = {},
): Promise<SupervisedRunResult> {
  return ownedRun({ link: env.link, task, model: { kind: 'coarse' }, workers: 1, ...more });
}

/**
 * runOnLab with `model` recorded into `dir` as `parapush run` records it
 * (src-main/cli/commands/run.ts): a headless recorder of the run's planner settings, started before
 * the run and closed after it.
 */
export async function recordedRunOnLab(
  env: { link: LabLink },
  task: Task,
  dir: string,
  model: ModelRequest = { kind: 'coarse' },
): Promise<SupervisedRunResult> {
  const recorder = await RunRecorder.start({
    dir,
    origin: 'headless',
    mode: 'real',
    scene: env.link.scene,
    settings: plannerSettingsOf(task, env.link.scene, model, 'analytical'),
  });
  try {
    return await runOnLab(env, task, { model, recorder });
  } finally {
    await recorder.close();
  }
}

/**
 * A previous console's robot link that owned the RTDE command inputs, cut off by a pulled cable:
 * the virtual controller drops its connections, and keeps the inputs held for its
 * `rtdeHalfOpenHold` from then. Resolves with when the cable was pulled (s, common/clock).
 */
export async function pullCableOnPreviousSession(lab: VirtualLab): Promise<number> {
  const previous = await Ur5Connection.connect({
    host: '127.0.0.1',
    rtdePort: lab.ports.rtde,
    scriptPort: lab.ports.secondary,
    reconnect: false,
  });
  lab.ur.rtde.dropClients();
  const pulledAt = monotonicSeconds();
  await previous.disconnect();
  return pulledAt;
}
