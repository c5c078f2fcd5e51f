/**
 * The virtual lab as the console's lab: started on loopback with ephemeral ports for each scene a
 * run asks for, and reached through the same LabLink (RTDE, dashboard, gripper, NatNet) as a real
 * lab. The lab runs in a thread of its own (lab/lab-thread), as real devices run on machines of
 * their own, so a busy main thread (planning, recording, UI) cannot stall its frames and robot
 * states. Tests that need the lab's devices themselves ask for it in this process (`inProcess`).
 * The lab loads scenes from files, so each scene is written to a private temporary folder first.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Scene } from '#contract/scene';
import { VirtualLabThread } from '../virtual-lab/lab-thread/lab-thread';
import { VirtualLab, type LabConfigInput } from '../virtual-lab/virtual-lab';
import { LabLink, loopbackLabAddress } from './lab-link';
import { loadSetup, setupSchema } from '../calibration/setup-file';
import { LabConnection, type OpenedLab } from './lab-connection';

export interface VirtualLabConnectionOptions {
  /** NatNet over multicast on 127.0.0.1 instead of unicast. */
  multicast?: boolean;
  /** s before the virtual controller lets a protective stop be unlocked (5, as a real UR). */
  unlockDelay?: number;
  /**
   * Run the lab in this thread, for tests that reach into its devices (lab()); the console never
   * does: a main-thread stall would stall the lab too.
   */
  inProcess?: boolean;
}

/** The running lab, in this thread or its own. */
type Running = { kind: 'in-process'; lab: VirtualLab } | { kind: 'thread'; lab: VirtualLabThread };

export class VirtualLabConnection extends LabConnection {
  private readonly state: { running: Running | null };
  private readonly dir: string;
  private readonly errorListeners: Set<(err: Error) => void>;

  constructor(options: VirtualLabConnectionOptions = {}) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-virtual-lab-'));
    const state: { running: Running | null } = { running: null };
    const errorListeners = new Set<(err: Error) => void>();
    // The session itself, once constructed: the opener runs only after that.
    const self: { session?: LabConnection } = {};
    const setupFile = path.join(dir, 'setup.json');
    const where = options.inProcess ? 'in this process' : 'in a thread of its own';
    let count = 0;
    super(
      'virtual',
      `virtual lab ${where} (127.0.0.1, ${options.multicast ? 'multicast' : 'unicast'} NatNet)`,
      async (scene) => {
        const sceneFile = path.join(dir, `scene-${++count}.json`);
        writeFileSync(sceneFile, JSON.stringify(scene));
        const config: LabConfigInput = {
          scene: sceneFile,
          ports: {
            rtde: 0,
            dashboard: 0,
            secondary: 0,
            realtime: 0,
            gripper: 0,
            natnetCommand: 0,
            natnetData: 0,
          },
          mocap: { multicast: options.multicast ?? false },
          ...(options.unlockDelay !== undefined ? { robot: { unlockDelay: options.unlockDelay } } : {}),
        };
        const running: Running = options.inProcess
          ? { kind: 'in-process', lab: await VirtualLab.start(config) }
          : { kind: 'thread', lab: await VirtualLabThread.start(config) };
        let opened: OpenedLab | null = null;
        if (running.kind === 'thread')
          running.lab.on('error', (err) => {
            for (const l of errorListeners) l(err);
            // The lab's servers are gone: the next run starts a fresh lab.
            if (opened) void self.session?.drop(opened.link).catch(() => undefined);
          });
        try {
          opened = await connect(running, scene, setupFile, () => {
            if (state.running === running) state.running = null;
          });
          state.running = running;
          return opened;
        } catch (err) {
          await running.lab.stop();
          throw err;
        }
      },
      setupFile,
    );
    this.state = state;
    this.dir = dir;
    this.errorListeners = errorListeners;
    self.session = this;
  }

  /** The running lab when it runs in this process (inProcess), else null. */
  lab(): VirtualLab | null {
    const r = this.state.running;
    return r?.kind === 'in-process' ? r.lab : null;
  }

  /** The running lab's thread (the console's lab), or null between scenes or when in process. */
  thread(): VirtualLabThread | null {
    const r = this.state.running;
    return r?.kind === 'thread' ? r.lab : null;
  }

  /** Fault injection on whichever lab runs: the virtual controller enters a protective stop. */
  async injectProtectiveStop(): Promise<void> {
    const r = this.state.running;
    if (!r) throw new Error(`the ${this.description} is not running`);
    if (r.kind === 'in-process') r.lab.ur.controller.injectProtectiveStop();
    else await r.lab.injectProtectiveStop();
  }

  /** Calls back when the lab's thread ends or fails while it should run; returns unsubscribe. */
  onError(listener: (err: Error) => void): () => void {
    this.errorListeners.add(listener);
    return () => this.errorListeners.delete(listener);
  }

  override async close(): Promise<void> {
    await super.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function connect(
  running: Running,
  scene: Scene,
  setupFile: string,
  closed: () => void,
): Promise<OpenedLab> {
  const lab = running.lab;
  const link = await LabLink.connect(
    loopbackLabAddress(lab.ports),
    scene,
    // A setup saved by the calibration wizard outlives scene changes; else the lab's true frames.
    existsSync(setupFile) ? loadSetup(setupFile) : setupSchema.parse(lab.setup),
  );
  return {
    link,
    placeObjects: () => lab.placeObjects(),
    close: async () => {
      closed();
      await link.close();
      await lab.stop();
    },
  };
}
