/** `parapush lab`: the virtual lab on loopback, until interrupted. */
import path from 'node:path';
import type { Command } from 'commander';
import { loadLabConfig, VirtualLab, type LabConfig } from '../../virtual-lab/virtual-lab';
import { defaultSetupDir } from '../../calibration/setup-file';
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
      const lab = await VirtualLab.start(config);
      const setup = lab.writeSetup(opts.setupOut);
      const info = { scene: lab.scene.name, ports: lab.ports, multicast: config.mocap.multicast, setup };
      if (opts.json) process.stdout.write(`${JSON.stringify(info)}\n`);
      else {
        const p = lab.ports;
        process.stdout.write(
          [
            `virtual lab running on 127.0.0.1 (scene ${lab.scene.name})`,
            `  UR5: RTDE ${p.rtde}, dashboard ${p.dashboard}, script ${p.secondary}/${p.realtime} (${lab.ur.controller.profile.series} ${config.robot.software}, ${lab.ur.controller.frequency} Hz)`,
            `  Robotiq: ${p.gripper}`,
            `  NatNet: command ${p.natnetCommand}, data ${p.natnetData} (${config.mocap.multicast ? 'multicast' : 'unicast'}, ${config.mocap.rateHz} Hz)`,
            `  setup written to ${setup}`,
            'press Ctrl+C to stop',
            '',
          ].join('\n'),
        );
      }
      await untilStopped().done;
      await lab.stop();
    });
}
