/** `parapush lab` configs as the tests start the virtual lab: on free ports, NatNet unicast. */
import { writeFileSync } from 'node:fs';
import type { LabConfigInput } from '../../src-main/virtual-lab/virtual-lab';

/** Every port chosen by the system, so tests can run side by side. */
export const FREE_LAB_PORTS = {
  rtde: 0,
  dashboard: 0,
  secondary: 0,
  realtime: 0,
  gripper: 0,
  natnetCommand: 0,
  natnetData: 0,
} as const;

/**
 * Writes a lab config for `scene` to `file` (free ports, unicast NatNet, plus `more`) and returns
 * the file, for `parapush lab --config`.
 */
export function writeLabConfig(
  file: string,
  scene: string,
  more: Omit<LabConfigInput, 'scene' | 'ports'> = {},
): string {
  const config: LabConfigInput = {
    ...more,
    scene,
    ports: FREE_LAB_PORTS,
    mocap: { multicast: false, ...more.mocap },
  };
  writeFileSync(file, JSON.stringify(config));
  return file;
}
