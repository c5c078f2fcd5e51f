/**
 * The parallel gripper tool (a gripper scene's robot: WAFR 2018 Sec. 4, q_R = (x, y, yaw,
 * opening) of its grasp centre; its frame and parts: contract/gripper-geometry.ts), whose fingers
 * are the Robotiq 2-finger device's.
 *
 * In the fine model it is a planar body (palm) on three joints, x and y
 * slides and a yaw hinge about its grasp centre, carrying two fingers on slide joints across its
 * forward axis. Every joint is velocity-actuated with the pusher's recipe (pusher.ts): a heavy body
 * and a gain of mass / timestep, so the gripper follows its command closely under explicit
 * integrators and contact forces leave a small steady lag.
 *
 * The fingers move symmetrically, as the Robotiq's linkage makes them: an equality constraint ties
 * the right finger's joint to the left one's and both are commanded half the opening speed (each
 * joint holds half the opening). Their actuators are force-limited to a grip force the Robotiq
 * spans (20-235 N): an unlimited gain of m / dt would squeeze an object with hundreds of newtons
 * and MuJoCo's soft contacts would let the fingers sink into it by centimetres.
 *
 * The joints are named below; the tool's `joints` map them to the state's four entries.
 */
import { gripperParts, partCorners } from '../gripper-geometry';
import { gripperSchema, type Gripper } from '../scene';
import type { EndEffector, EndEffectorKind, ToolSlots } from './end-effector';

/** Mass of the palm body (kg): as heavy as the pusher, for the same gain. */
export const GRIPPER_MASS = 50;
/** Mass of each finger (kg). */
export const FINGER_MASS = 5;
/** Largest force of a finger's actuator (N): within the Robotiq's 20-235 N grip force. */
export const GRIP_FORCE = 40;
/** Friction of the gripper's geoms: the pusher's (pusher.ts PUSHER_FRICTION). */
const GRIPPER_FRICTION = 0.2;

export const GRIPPER_JOINTS = {
  x: 'gripper_x',
  y: 'gripper_y',
  yaw: 'gripper_yaw',
  fingers: ['gripper_finger_left', 'gripper_finger_right'],
} as const;

/**
 * Farthest point of the gripper from its grasp centre (m): a palm corner at the back. A yaw rate
 * times this is the fastest any point of the gripper moves by turning.
 */
export function gripperReach(g: Gripper): number {
  return Math.hypot(g.finger.length / 2 + g.palm.depth, g.palm.width / 2);
}

/** Yaw inertia of the palm body about the grasp centre (kg m^2): a disc of the reach. */
function yawInertia(g: Gripper): number {
  return (GRIPPER_MASS * gripperReach(g) ** 2) / 2;
}

/**
 * The gripper's worldbody lines and actuator lines. `clearance` lifts its lowest geom above the
 * table (it never touches it); `timestep` sets the gains.
 */
function gripperMjcf(
  g: Gripper,
  o: { clearance: number; timestep: number },
): { body: string[]; equality: string[]; actuators: string[] } {
  const { palm, finger } = g;
  const z = finger.height / 2 + o.clearance;
  const iz = yawInertia(g);
  const half = g.maxOpening / 2;
  const geom = `contype="2" conaffinity="1" friction="${GRIPPER_FRICTION} 0.005 0.0001"`;
  // contype 2 / conaffinity 1: the gripper touches the objects (and the table, were it to sink),
  // never itself; the two fingers meet only through their joint limits.
  const fingerBody = (name: string, side: 1 | -1): string[] => [
    `      <body name="${name}" pos="0 0 0">`,
    `        <joint name="${name}" type="slide" axis="0 ${side} 0" limited="true" range="0 ${half}"/>`,
    `        <inertial pos="0 ${(side * finger.thickness) / 2} 0" mass="${FINGER_MASS}" diaginertia="0.001 0.001 0.001"/>`,
    `        <geom name="${name}" type="box" pos="0 ${(side * finger.thickness) / 2} 0" size="${finger.length / 2} ${finger.thickness / 2} ${finger.height / 2}" ${geom}/>`,
    '      </body>',
  ];
  const [left, right] = GRIPPER_JOINTS.fingers;
  const body = [
    `    <body name="gripper" pos="0 0 ${z}">`,
    // Slides before the hinge: the slide axes stay the table's x and y whatever the yaw.
    `      <joint name="${GRIPPER_JOINTS.x}" type="slide" axis="1 0 0"/>`,
    `      <joint name="${GRIPPER_JOINTS.y}" type="slide" axis="0 1 0"/>`,
    `      <joint name="${GRIPPER_JOINTS.yaw}" type="hinge" axis="0 0 1"/>`,
    `      <inertial pos="0 0 0" mass="${GRIPPER_MASS}" diaginertia="${iz} ${iz} ${iz}"/>`,
    `      <geom name="gripper_palm" type="box" pos="${-(finger.length / 2 + palm.depth / 2)} 0 ${(palm.height - finger.height) / 2}" size="${palm.depth / 2} ${palm.width / 2} ${palm.height / 2}" ${geom}/>`,
    ...fingerBody(left, 1),
    ...fingerBody(right, -1),
    '    </body>',
  ];
  const equality = [`    <joint joint1="${right}" joint2="${left}" polycoef="0 1 0 0 0"/>`];
  // Gains: the moving mass over the timestep (palm and fingers for x and y; the palm's yaw
  // inertia, a lower bound of the whole gripper's, for yaw; each finger's mass for the fingers).
  const kvXY = (GRIPPER_MASS + 2 * FINGER_MASS) / o.timestep;
  const kvFinger = FINGER_MASS / o.timestep;
  const actuators = [
    `    <velocity name="gripper_vx" joint="${GRIPPER_JOINTS.x}" kv="${kvXY}"/>`,
    `    <velocity name="gripper_vy" joint="${GRIPPER_JOINTS.y}" kv="${kvXY}"/>`,
    `    <velocity name="gripper_omega" joint="${GRIPPER_JOINTS.yaw}" kv="${iz / o.timestep}"/>`,
    ...GRIPPER_JOINTS.fingers.map(
      (j) =>
        `    <velocity name="${j}" joint="${j}" kv="${kvFinger}" forcelimited="true" forcerange="${-GRIP_FORCE} ${GRIP_FORCE}"/>`,
    ),
  ];
  return { body, equality, actuators };
}

/** Entry of q_R holding the gripper's yaw, and its opening (the state's and the controls'). */
export const GRIPPER_YAW = 2;
export const GRIPPER_OPENING = 3;

/** Its state entries (contract/state.ts). */
export const GRIPPER_SLOTS: ToolSlots = {
  name: 'gripper',
  positions: ['x', 'y', 'yaw', 'opening'],
  velocities: ['vx', 'vy', 'omega', 'vopening'],
  angles: [GRIPPER_YAW],
  yaw: GRIPPER_YAW,
  opening: GRIPPER_OPENING,
};

export function parallelGripper(g: Gripper): EndEffector {
  // Its widest body: a rectangle from the palm's back to the fingertips, the palm's width or the
  // open fingers', whichever is wider, centred `offset` ahead of the grasp centre.
  const back = g.finger.length / 2 + g.palm.depth;
  const front = g.finger.length / 2;
  const hx = (back + front) / 2;
  const hy = Math.max(g.palm.width / 2, g.maxOpening / 2 + g.finger.thickness);
  const offset = (front - back) / 2;
  // The envelope's turning radius: a yaw rate times this bounds any point's speed from turning.
  const radius = Math.hypot(hx, hy) + Math.abs(offset);
  return {
    kind: 'parallel-gripper',
    title: 'Parallel gripper',
    slots: GRIPPER_SLOTS,
    inputs: [
      { name: 'vx', unit: 'm/s' },
      { name: 'vy', unit: 'm/s' },
      { name: 'yaw rate', unit: 'rad/s', limit: 'maxYawRate' },
      { name: 'opening speed', unit: 'm/s', limit: 'maxOpeningSpeed' },
    ],
    start: [g.pose.x, g.pose.y, g.pose.theta, g.opening],
    height: g.finger.height,
    rigidBody: g.rigidBody,
    parts: (q) =>
      gripperParts(g, { x: q[0]!, y: q[1]!, yaw: q[GRIPPER_YAW]!, opening: q[GRIPPER_OPENING]! }).map(
        ({ hx, hy, ...at }, i) => ({
          footprint: { kind: 'rect', hx, hy },
          ...at,
          // The palm is as tall as the scene says; the fingers are the tool's height.
          ...(i === 0 ? { height: g.palm.height } : {}),
        }),
      ),
    envelope: { footprint: { kind: 'rect', hx, hy }, offset },
    // The palm's and both fingers' corners with the fingers fully open, the widest it gets.
    outline: gripperParts(g, { x: 0, y: 0, yaw: 0, opening: g.maxOpening })
      .flatMap(partCorners)
      .map(([x, y]) => ({ x, y })),
    // Translation, turning at the envelope's radius, each finger at half the opening speed.
    pointSpeed: (v) =>
      Math.hypot(v[0]!, v[1]!) + (Math.abs(v[GRIPPER_YAW]!) * radius + Math.abs(v[GRIPPER_OPENING]!) / 2),
    // The yaw's noise is drawn in m/s like the rest and turned into the yaw rate that moves its
    // farthest point that fast (the noise model's |u| combines the inputs the same way:
    // planning/execution-world.ts).
    noiseScales: [1, 1, 1 / gripperReach(g), 1],
    // The yaw rate at its farthest point, each finger at half the opening speed.
    speedScales: [1, 1, gripperReach(g), 1 / 2],
    controlLimits: ({ maxPusherSpeed, maxYawRate, maxOpeningSpeed }) =>
      // The scene's schema requires both for a gripper scene.
      ({ maxSpeed: maxPusherSpeed, maxYawRate: maxYawRate!, maxOpeningSpeed: maxOpeningSpeed! }),
    model: (o) => gripperMjcf(g, o),
    joints: [[GRIPPER_JOINTS.x], [GRIPPER_JOINTS.y], [GRIPPER_JOINTS.yaw], GRIPPER_JOINTS.fingers],
    discRadius: undefined,
    fingers: g,
  };
}

export const parallelGripperKind: EndEffectorKind<Gripper> = {
  kind: 'parallel-gripper',
  description: 'two fingers closing on an object, turning about its grasp centre (x, y, yaw, opening)',
  parse: (entry) => gripperSchema.parse(entry),
  create: parallelGripper,
  moveStart: (g, at) => ({ ...g, pose: { ...g.pose, x: at.x, y: at.y } }),
};
