/** The setup the virtual lab writes for a scene at its default placement (virtual-lab.ts labSetup). */
import type { Scene } from '#contract/scene';
import { setupSchema, type Setup } from '../../src-main/calibration/setup-file';

/**
 * The virtual lab's default robot placement (virtual-lab.ts labConfigSchema's robot defaults),
 * written out so renderer tests need not load the virtual lab; test/safety/controller-checks.test.ts
 * checks it against the schema.
 */
export const LAB_ROBOT_DEFAULTS = {
  tableYaw: 0,
  tableOrigin: [0, -0.45, 0] as [number, number, number],
  pusherOffset: [0, 0, 0.15] as [number, number, number],
};
const lab = LAB_ROBOT_DEFAULTS;

/** The table -> base offset (m) may be moved from the lab's default to put the table elsewhere. */
export function labSetupFor(scene: Scene, offset: [number, number, number] = lab.tableOrigin): Setup {
  return setupSchema.parse({
    name: `virtual-lab-${scene.name}`,
    mocap: {
      setup: 'virtual-lab',
      kind: '3d',
      upAxis: 'y',
      rotation: [1, 0, 0, 0],
      translation: [0, 0, 0],
      residual: { rms: 0, max: 0, pairs: 0 },
      createdAt: new Date(0).toISOString(),
    },
    table: { size: scene.table.size },
    robot: { calibration: { yaw: lab.tableYaw, offset }, pusherOffset: lab.pusherOffset },
  });
}
