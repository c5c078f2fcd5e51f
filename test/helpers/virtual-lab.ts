/**
 * The virtual lab as tests of supervised runs use it: started on free ports (unicast NatNet) with a
 * LabLink connected as a run would, a quick task for it, and the STOP commands on the wire.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { VirtualLab, type LabConfigInput } from '../../src-main/virtual-lab/virtual-lab';
import type { InputWrite } from '../../src-main/virtual-lab/virtual-ur/rtde-server';
import { loadTaskFile, type Task } from '../../src-main/planning/task-file';
import { CommandCode, INPUT_NAMES } from '../../src-main/robot/registers';
import { LabLink, loopbackLabAddress } from '../../src-main/lab-link/lab-link';
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

/** performance.now() of each STOP command the virtual controller decodes, from now on. */
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

/** Starts the virtual lab and connects a LabLink to it, as a run would. */
export async function startLabAndLink(
  config: LabConfigInput = {},
): Promise<{ lab: VirtualLab; link: LabLink; close(): Promise<void> }> {
  const lab = await VirtualLab.start({
    scene: path.join(repoRoot, 'test/fixtures/lab-short-scene.json'),
    ports: FREE_LAB_PORTS,
    mocap: { multicast: false },
    robot: { unlockDelay: 0.3 },
    world: { noiseVariance: 0, seed: 1 },
    ...config,
  });
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
