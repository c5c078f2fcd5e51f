/**
 * A real lab as the console's lab: the configured UR controller and Motive server, with the lab
 * setup (calibrations, safety envelope) from its file. Connecting checks nothing beyond reaching
 * the devices; the pre-flight checklist judges whether a run may be armed.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { RealLabSettings } from '#contract/lab-settings';
import { LabLink } from './lab-link';
import { defaultSetupDir, loadSetup } from '../calibration/setup-file';
import { LabConnection } from './lab-connection';

export const isLoopback = (host: string): boolean => host === 'localhost' || host.startsWith('127.');

/** The local interface that receives a Motive server's NatNet frames: loopback for one on loopback, else any. */
export function mocapLocalFor(mocapHost: string): string {
  return isLoopback(mocapHost) ? '127.0.0.1' : '0.0.0.0';
}

export function realLabConnection(settings: RealLabSettings): LabConnection {
  const setupFile = settings.setupFile ?? path.join(defaultSetupDir(), `${settings.robotHost}.json`);
  return new LabConnection(
    'real',
    `lab: robot ${settings.robotHost}, motion capture ${settings.mocapHost}`,
    async (scene, notify) => {
      if (!existsSync(setupFile))
        throw new Error(
          `no lab setup at ${setupFile}: write a first setup from the template (Setup view, Calibration wizard; docs/console.md), then calibrate it`,
        );
      const link = await LabLink.connect(
        {
          robotHost: settings.robotHost,
          mocapHost: settings.mocapHost,
          mocapLocal: settings.mocapLocal ?? mocapLocalFor(settings.mocapHost),
          ...(settings.ports ? { ports: settings.ports } : {}),
        },
        scene,
        loadSetup(setupFile),
        notify,
      );
      return { link, close: () => link.close() };
    },
    setupFile,
  );
}
