/**
 * The in-process virtual lab as the console's lab: started on loopback with ephemeral ports for
 * each scene a run asks for, and reached through the same LabLink (RTDE, dashboard, gripper,
 * NatNet) as a real lab. The lab loads scenes from files, so each scene is written to a private
 * temporary folder first.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Scene } from '#contract/scene';
import { VirtualLab } from '../virtual-lab/virtual-lab';
import { LabLink, loopbackLabAddress } from './lab-link';
import { loadSetup, setupSchema } from '../calibration/setup-file';
import { LabConnection } from './lab-connection';

export interface VirtualLabConnectionOptions {
  /** NatNet over multicast on 127.0.0.1 instead of unicast. */
  multicast?: boolean;
  /** s before the virtual controller lets a protective stop be unlocked (5, as a real UR). */
  unlockDelay?: number;
}

async function openVirtualLab(
  scene: Scene,
  sceneFile: string,
  setupFile: string,
  options: VirtualLabConnectionOptions,
): Promise<{ lab: VirtualLab; link: LabLink }> {
  writeFileSync(sceneFile, JSON.stringify(scene));
  const lab = await VirtualLab.start({
    scene: sceneFile,
    ports: { rtde: 0, dashboard: 0, secondary: 0, realtime: 0, gripper: 0, natnetCommand: 0, natnetData: 0 },
    mocap: { multicast: options.multicast ?? false },
    ...(options.unlockDelay !== undefined ? { robot: { unlockDelay: options.unlockDelay } } : {}),
  });
  try {
    const link = await LabLink.connect(
      loopbackLabAddress(lab.ports),
      scene,
      // A setup saved by the calibration wizard outlives scene changes; else the lab's true frames.
      existsSync(setupFile) ? loadSetup(setupFile) : setupSchema.parse(lab.setup),
    );
    return { lab, link };
  } catch (err) {
    await lab.stop();
    throw err;
  }
}

/** A lab connection on the virtual lab; lab() gives the running lab itself (tests, diagnostics). */
export class VirtualLabConnection extends LabConnection {
  private readonly running: { lab: VirtualLab | null };
  private readonly dir: string;

  constructor(options: VirtualLabConnectionOptions = {}) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-virtual-lab-'));
    const running: { lab: VirtualLab | null } = { lab: null };
    const setupFile = path.join(dir, 'setup.json');
    let count = 0;
    super(
      'virtual',
      `virtual lab in this process (127.0.0.1, ${options.multicast ? 'multicast' : 'unicast'} NatNet)`,
      async (scene) => {
        const opened = await openVirtualLab(
          scene,
          path.join(dir, `scene-${++count}.json`),
          setupFile,
          options,
        );
        running.lab = opened.lab;
        return {
          link: opened.link,
          placeObjects: () => opened.lab.placeObjects(),
          close: async () => {
            running.lab = null;
            await opened.link.close();
            await opened.lab.stop();
          },
        };
      },
      setupFile,
    );
    this.running = running;
    this.dir = dir;
  }

  /** The running virtual lab, or null between scenes. */
  lab(): VirtualLab | null {
    return this.running.lab;
  }

  override async close(): Promise<void> {
    await super.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
