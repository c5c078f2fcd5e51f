/**
 * `parapush lab`: the virtual lab on loopback, until interrupted. Its devices run in a thread of
 * their own at raised priority (virtual-lab/lab-thread, as the console's virtual lab runs), not on
 * this process's main thread: on a real lab the UR controller and Motive are machines of their
 * own, and a stall of this process's main thread (a collection, a busy moment) must not pause
 * both of them at once.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { loadSceneFile } from '../../common/config-files';
import { describePriority } from '../../common/thread-priority';
import { loadLabConfig, type LabConfig } from '../../virtual-lab/virtual-lab';
import { VirtualLabThread } from '../../virtual-lab/lab-thread/lab-thread';
import { controllerProfile } from '../../virtual-lab/virtual-ur/profile';
import { defaultSetupDir, saveSetup } from '../../calibration/setup-file';
import { requireFile, UsageError } from '../errors';
import { untilStopped } from '../until-stopped';
import { registerLabCheckCommand } from './lab-check';

/** The lab config: a missing, unreadable or invalid file is bad input (exit 2), not a crash. */
function labConfig(file: string | undefined): LabConfig {
  if (file !== undefined) requireFile(file, '--config');
  try {
    return loadLabConfig(file);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function registerLabCommand(program: Command): void {
  const lab = program.command('lab');
  registerLabCheckCommand(lab);
  lab
    .description(
      'start the virtual lab on 127.0.0.1: virtual UR5 controller, Robotiq gripper and NatNet server on one MuJoCo world',
    )
    .option('--config <file>', 'lab config JSON (scene, ports, rates, noise, faults)')
    .option(
      '--setup-out <file>',
      'where to write the lab setup (calibrations) runs load',
      path.join(defaultSetupDir(), '127.0.0.1.json'),
    )
    .option('--json', 'print the ports and setup path as one JSON object')
    .action(async (opts: { config?: string; setupOut: string; json?: boolean }) => {
      const config = labConfig(opts.config);
      const scene = loadSceneFile(config.scene);
      const lab = await VirtualLabThread.start(config);
      const stopped = untilStopped();
      // The thread ending under the lab takes its servers with it: say so and end with an error.
      const failed = new Promise<Error>((resolve) => lab.once('error', resolve));
      const setup = saveSetup(opts.setupOut, lab.setup);
      const info = {
        scene: scene.name,
        ports: lab.ports,
        multicast: config.mocap.multicast,
        setup,
        priority: lab.priority,
      };
      if (opts.json) process.stdout.write(`${JSON.stringify(info)}\n`);
      else {
        const p = lab.ports;
        const profile = controllerProfile(config.robot.software);
        process.stdout.write(
          [
            `virtual lab running on 127.0.0.1 (scene ${scene.name})`,
            `  UR5: RTDE ${p.rtde}, dashboard ${p.dashboard}, script ${p.secondary}/${p.realtime} (${profile.series} ${config.robot.software}, ${profile.frequency} Hz)`,
            `  Robotiq: ${p.gripper}`,
            `  NatNet: command ${p.natnetCommand}, data ${p.natnetData} (${config.mocap.multicast ? 'multicast' : 'unicast'}, ${config.mocap.rateHz} Hz)`,
            `  devices in a thread of their own at ${describePriority(lab.priority)}`,
            `  setup written to ${setup}`,
            'press Ctrl+C to stop',
            '',
          ].join('\n'),
        );
      }
      const end = await Promise.race([stopped.done.then(() => null), failed]);
      await lab.stop();
      if (end) throw new Error(`the virtual lab stopped: ${end.message}`);
    });
}
