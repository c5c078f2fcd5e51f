/** Starts the virtual lab on free ports (unicast NatNet) and connects a LabLink to it, as a run would. */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { VirtualLab, type LabConfigInput } from '../../src-main/lab/virtual-lab';
import { LabLink, loopbackLabAddress } from '../../src-main/run/lab-link';
import { loadSetup } from '../../src-main/setup/setup-file';
import { repoRoot } from './scenes';

export async function startLabAndLink(
  config: LabConfigInput = {},
): Promise<{ lab: VirtualLab; link: LabLink; close(): Promise<void> }> {
  const lab = await VirtualLab.start({
    scene: path.join(repoRoot, 'test/fixtures/lab-short-scene.json'),
    ports: { rtde: 0, dashboard: 0, secondary: 0, realtime: 0, gripper: 0, natnetCommand: 0, natnetData: 0 },
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
