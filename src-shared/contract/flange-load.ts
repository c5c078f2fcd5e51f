/**
 * The flange load: what hangs on the robot's flange (the Robotiq and the pusher it holds) as the
 * control program declares it to the controller (`set_payload`, `set_tcp`, as URCL's and
 * ur_rtde's programs do): a wrong payload trips protective stops or dulls collision detection,
 * and the TCP is the point the console's calibration and pusher offset are measured from. Part of
 * the lab setup (its `robot.tool` entry, the key setup files have always used). Not the end
 * effector (contract/end-effector/), which is what the planner moves on the table.
 */
import { z } from 'zod';

/**
 * The tool force limit of UR's Normal safety preset, N (UR user manual, safety configuration): a
 * larger force on the tool raises a protective stop.
 */
export const NORMAL_PRESET_FORCE_LIMIT = 150;

/** A UR5's rated payload, kg (UR5 technical specifications). */
export const UR5_MAX_PAYLOAD = 5;

function within(min: number, max: number, unit: string) {
  return z
    .number()
    .refine(Number.isFinite, 'must be a finite number')
    .refine((v) => v >= min && v <= max, `must be between ${min} and ${max} ${unit}`);
}

const cogComponent = within(-0.3, 0.3, 'm');
const tcpComponent = within(-Math.PI, Math.PI, 'm or rad');

/**
 * The defaults: a Robotiq 2F-85 (0.925 kg, Robotiq's specification) with a light pusher, its
 * centre of gravity about mid-gripper, and the TCP at the flange (what the calibration assumes
 * unless told otherwise).
 */
export const flangeLoadSchema = z
  .object({
    mass: within(0, UR5_MAX_PAYLOAD, 'kg').default(1).describe('kg, gripper and pusher'),
    centerOfGravity: z
      .tuple([cogComponent, cogComponent, cogComponent])
      .default([0, 0, 0.05])
      .describe('m, from the flange in the flange frame'),
    tcp: z
      .tuple([tcpComponent, tcpComponent, tcpComponent, tcpComponent, tcpComponent, tcpComponent])
      .default([0, 0, 0, 0, 0, 0])
      .describe(
        'tool centre point from the flange (m, rotation vector rad): the pusher offset is measured from it',
      ),
  })
  .strict();

export type FlangeLoad = z.infer<typeof flangeLoadSchema>;
export type FlangeLoadInput = z.input<typeof flangeLoadSchema>;
