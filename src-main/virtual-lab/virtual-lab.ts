/**
 * The virtual lab: everything on the far side of the sockets, on loopback. A virtual UR controller
 * (RTDE, dashboard, script ports), a virtual Robotiq gripper and a virtual NatNet server, all on
 * one MuJoCo world. In a pusher scene the Robotiq holds the pusher, which follows the tool; in a
 * gripper scene the Robotiq is the robot: its body follows the tool's position and yaw, its
 * fingers are the world's. The real clients connect to it exactly as they connect to the lab;
 * nothing in them knows the difference.
 */
import path from 'node:path';
import { z } from 'zod';
import { NORMAL_PRESET_FORCE_LIMIT } from '#contract/flange-load';
import type { Vec3 } from '#contract/geometry';
import { endEffectorOf, robotStart } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import { loadSceneFile } from '../common/config-files';
import { axisAngle, vectorFromRotation } from '../common/rotation';
import { RobotAdapter } from '../robot/adapter';
import { saveSetup, type SetupInput } from '../calibration/setup-file';
import { LabWorld } from './lab-world';
import { pivotTruthSchema, scenePivots, truePivotOffsets } from './pivot-truth';
import { natNetFaultsSchema } from './natnet-faults';
import {
  DEFAULT_EXPOSURE_LATENCY,
  DEFAULT_MEASUREMENT_NOISE,
  sceneRigidBodies,
  VirtualNatNetServer,
} from './natnet-server';
import { SCENE_PHYSICS, worldMocapSchema, worldPhysicsSchema } from './world-physics';
import { positionRangeOptionSchema, VirtualGripper } from './virtual-gripper';
import { VirtualUr, type VirtualUrPorts } from './virtual-ur';
import type { Pose6 } from './virtual-ur/arm';
import { controllerProfile, softwareVersionSchema } from './virtual-ur/profile';
import { readStoredJson } from '../common/stored-json';
import { compareVersions } from '../mocap/version';
import {
  bitstream,
  bitstreamSchema,
  MOTIVE_VERSIONS,
  motiveStreamingSchema,
  type MotiveVersion,
} from './motive-profile';

const port = z.number().int().min(0).max(65535);
const here = path.dirname(new URL(import.meta.url).pathname);

export const labConfigSchema = z
  .object({
    scene: z.string().default(path.resolve(here, '../../resources/scenes/isrr-obstacle.json')),
    ports: z
      .object({
        rtde: port.default(30004),
        dashboard: port.default(29999),
        secondary: port.default(30002),
        realtime: port.default(30003),
        gripper: port.default(63352),
        natnetCommand: port.default(1510),
        natnetData: port.default(1511),
      })
      .strict()
      .default({
        rtde: 30004,
        dashboard: 29999,
        secondary: 30002,
        realtime: 30003,
        gripper: 63352,
        natnetCommand: 1510,
        natnetData: 1511,
      }),
    robot: z
      .object({
        /** The controller modelled: 3.x a CB3 (125 Hz), 5.x an e-Series (500 Hz). */
        software: softwareVersionSchema.default('5.11'),
        /** Kept for older configs: must be the software version's rate. */
        frequency: z.union([z.literal(125), z.literal(500)]).optional(),
        /** e-Series: Remote Control (true) or Local mode, as on the teach pendant. */
        remoteControl: z.boolean().default(true),
        unlockDelay: z.number().min(0).default(5),
        /** s from an accepted protective-stop unlock until the arm runs again. */
        releaseTime: z.number().min(0).default(0.5),
        /** Where the table sits in the robot base frame (the truth the setup file records). */
        tableYaw: z.number().default(0),
        tableOrigin: z.tuple([z.number(), z.number(), z.number()]).default([0, -0.45, 0]),
        pusherOffset: z.tuple([z.number(), z.number(), z.number()]).default([0, 0, 0.15]),
        /** The teach pendant's speed slider, fraction: 1 is 100 %. */
        speedSlider: z.number().gt(0).max(1).default(1),
        /** s an RTDE session cut off by a pulled cable keeps its input registers (its TCP timeout). */
        rtdeHalfOpenHold: z.number().min(0).max(600).default(0),
        /** N, the safety configuration's tool force limit (UR's Normal preset: 150 N). */
        toolForceLimit: z.number().positive().default(NORMAL_PRESET_FORCE_LIMIT),
      })
      .strict()
      .refine((r) => r.frequency === undefined || r.frequency === controllerProfile(r.software).frequency, {
        message:
          "frequency must be the software version's: 125 Hz for a CB3 (3.x), 500 Hz for an e-Series (5.x)",
        path: ['frequency'],
      })
      .default({
        software: '5.11',
        remoteControl: true,
        unlockDelay: 5,
        releaseTime: 0.5,
        tableYaw: 0,
        tableOrigin: [0, -0.45, 0],
        pusherOffset: [0, 0, 0.15],
        speedSlider: 1,
        rtdeHalfOpenHold: 0,
        toolForceLimit: NORMAL_PRESET_FORCE_LIMIT,
      }),
    mocap: z
      .object({
        multicast: z.boolean().default(true),
        rateHz: z.number().positive().default(120),
        /** Motive's version: the NatNet bitstreams it knows (virtual-lab/motive-profile.ts). */
        motive: z.enum(Object.keys(MOTIVE_VERSIONS) as [MotiveVersion, ...MotiveVersion[]]).default('3.1'),
        /** Streaming > Bitstream version (e.g. "3.1"): the multicast stream's; default the Motive's own. */
        natNetVersion: bitstreamSchema.optional(),
        /** Settings > Streaming: enabled, local interface, and whether Motive is on a PC of its own. */
        streaming: motiveStreamingSchema.default({
          enabled: true,
          localInterface: 'network',
          host: 'remote',
          upAxis: 'y',
        }),
        /** Motive's frame against the table: yaw about the up axis (rad) and offset (m), Y-up. */
        yaw: z.number().default(0.3),
        offset: z.tuple([z.number(), z.number(), z.number()]).default([0.4, -0.2, 0.05]),
        /**
         * Where Motive put each rigid body's pivot (by name; virtual-lab/pivot-truth.ts): the
         * markers' centroid on the object and the object's yaw when the body was created. Bodies
         * left out get untidy defaults; `{ "markers": [0, 0, 0], "creationYaw": 0 }` is a pivot
         * reset onto the object.
         */
        pivots: z.record(z.string(), pivotTruthSchema).default({}),
        faults: natNetFaultsSchema.optional(),
      })
      .strict()
      .refine(
        (m) =>
          !m.natNetVersion ||
          compareVersions(bitstream(m.natNetVersion), MOTIVE_VERSIONS[m.motive].natNet) <= 0,
        { message: 'natNetVersion is newer than this Motive version streams', path: ['natNetVersion'] },
      )
      .default({
        multicast: true,
        rateHz: 120,
        motive: '3.1',
        streaming: { enabled: true, localInterface: 'network', host: 'remote', upAxis: 'y' },
        yaw: 0.3,
        offset: [0.4, -0.2, 0.05],
        pivots: {},
      }),
    /** The Robotiq: what POS reads at its stops (a 2F-85: about 3 open, 227-230 closed). */
    gripper: z
      .object({ positionRange: positionRangeOptionSchema.default({ open: 3, closed: 228 }) })
      .strict()
      .default({ positionRange: { open: 3, closed: 228 } }),
    world: z
      .object({
        noiseVariance: z.number().min(0).default(1e-4),
        seed: z.number().int().default(1),
        /** How the world's objects, pusher and table differ from the scene's (world-physics.ts). */
        physics: worldPhysicsSchema.default(SCENE_PHYSICS),
        /** How late and noisy the world's motion capture is (world-physics.ts). */
        mocap: worldMocapSchema.default({ latency: 0 }),
      })
      .strict()
      .default({ noiseVariance: 1e-4, seed: 1, physics: SCENE_PHYSICS, mocap: { latency: 0 } }),
  })
  .strict();

export type LabConfig = z.infer<typeof labConfigSchema>;
export type LabConfigInput = z.input<typeof labConfigSchema>;

export function loadLabConfig(file: string | undefined): LabConfig {
  if (!file) return labConfigSchema.parse({});
  const config = readStoredJson(file, labConfigSchema, { what: 'lab config' });
  // A relative scene path is relative to the config file.
  return { ...config, scene: path.resolve(path.dirname(file), config.scene) };
}

export interface LabPorts extends VirtualUrPorts {
  gripper: number;
  natnetCommand: number;
  natnetData: number;
}

/** Height of the tool point (the pusher's tip, the gripper's grasp centre at the fingers' bottom) above the table that the arm holds. */
const TIP_HEIGHT = 0.004;

export class VirtualLab {
  private constructor(
    readonly scene: Scene,
    readonly config: LabConfig,
    readonly world: LabWorld,
    readonly ur: VirtualUr,
    readonly gripper: VirtualGripper,
    readonly natnet: VirtualNatNetServer,
    readonly setup: SetupInput,
    /** Tool pose (base frame) that holds the pusher on the scene's start position. */
    private readonly homePose: Pose6,
    private readonly unsubscribe: () => void,
  ) {}

  static async start(input: LabConfigInput | LabConfig = {}): Promise<VirtualLab> {
    const config = labConfigSchema.parse(input);
    const scene = loadSceneFile(config.scene);
    const setup = labSetup(scene, config);
    const adapter = new RobotAdapter({
      calibration: setup.robot.calibration,
      pusherOffset: setup.robot.pusherOffset,
    });
    const world = await LabWorld.create(scene, adapter, {
      noiseVariance: config.world.noiseVariance,
      seed: config.world.seed,
      physics: config.world.physics,
      mocapLatency: config.world.mocap.latency,
    });
    // A turning tool's x axis points along its forward direction (a gripper's); a tool that keeps
    // its orientation may point down any way.
    const tool = endEffectorOf(scene);
    const toolDown: Vec3 =
      tool.slots.yaw === undefined
        ? [0, Math.PI, 0]
        : vectorFromRotation(adapter.toolDownAt(tool.start[tool.slots.yaw]!));
    const homePose: Pose6 = [
      ...adapter.toolPosition({ ...robotStart(scene), z: TIP_HEIGHT }, toolDown),
      ...toolDown,
    ];
    const ur = await VirtualUr.start({
      ports: {
        rtde: config.ports.rtde,
        dashboard: config.ports.dashboard,
        secondary: config.ports.secondary,
        realtime: config.ports.realtime,
      },
      software: config.robot.software,
      remoteControl: config.robot.remoteControl,
      unlockDelay: config.robot.unlockDelay,
      releaseTime: config.robot.releaseTime,
      initialPose: homePose,
      speedSlider: config.robot.speedSlider,
      halfOpenHold: config.robot.rtdeHalfOpenHold,
      toolForceLimit: config.robot.toolForceLimit,
    });
    const unsubscribe = ur.onMotion((m) => {
      world.setTool(m);
      ur.controller.noteToolForce(world.toolForce());
    });
    const gripper = await VirtualGripper.start({
      port: config.ports.gripper,
      positionRange: config.gripper.positionRange,
    });
    const fingers = world.fingers;
    if (fingers) gripper.attachFingers(fingers, fingers.maxOpening);
    const natnet = new VirtualNatNetServer({
      rigidBodies: sceneRigidBodies(scene),
      pivots: labPivots(scene, config),
      rateHz: config.mocap.rateHz,
      calibration: setup.mocap,
      multicast: config.mocap.multicast,
      commandPort: config.ports.natnetCommand,
      dataPort: config.ports.natnetData,
      natNetVersion: config.mocap.natNetVersion
        ? bitstream(config.mocap.natNetVersion)
        : MOTIVE_VERSIONS[config.mocap.motive].natNet,
      newestNatNet: MOTIVE_VERSIONS[config.mocap.motive].natNet,
      appVersion: MOTIVE_VERSIONS[config.mocap.motive].app,
      streaming: config.mocap.streaming,
      ...(config.mocap.faults ? { faults: config.mocap.faults } : {}),
      // A late pipeline stamps its frames with their true exposure: that much earlier.
      exposureLatency: DEFAULT_EXPOSURE_LATENCY + config.world.mocap.latency,
      ...(config.world.mocap.positionNoise !== undefined
        ? {
            measurementNoise: {
              position: config.world.mocap.positionNoise,
              yaw: DEFAULT_MEASUREMENT_NOISE.yaw,
            },
          }
        : {}),
    });
    natnet.setPoseSource(() => world.poses());
    world.start();
    await natnet.start();
    return new VirtualLab(scene, config, world, ur, gripper, natnet, setup, homePose, unsubscribe);
  }

  get ports(): LabPorts {
    return {
      ...this.ur.ports,
      gripper: this.gripper.port,
      natnetCommand: this.natnet.commandPort,
      natnetData: this.config.ports.natnetData,
    };
  }

  /**
   * Resets the table between runs: the arm (at rest) back to the tool pose that holds the pusher
   * on the scene's start position, pusher and sliders on their start poses. Resolves once the
   * cameras have sent a frame that shows them there.
   */
  async placeObjects(): Promise<void> {
    this.ur.controller.arm.placeAt(this.homePose);
    this.world.setTool({ pose: this.homePose, velocity: [0, 0, 0] });
    this.world.placeScene();
    const fingers = this.world.fingers;
    if (fingers) this.gripper.attachFingers(fingers, fingers.maxOpening);
    await this.natnet.nextFrameSent();
  }

  /** Writes the setup (calibrations and safety envelope) a run against this lab loads. */
  writeSetup(file: string): string {
    return saveSetup(file, this.setup);
  }

  async stop(): Promise<void> {
    this.unsubscribe();
    this.world.dispose();
    await Promise.all([this.natnet.stop(), this.gripper.stop(), this.ur.stop()]);
  }
}

/** Where the lab's Motive put each body's pivot. */
export function labPivots(scene: Scene, config: LabConfig) {
  return scenePivots(
    scene,
    sceneRigidBodies(scene).map((b) => b.name),
    config.mocap.pivots,
  );
}

/** The virtual lab's true frames, written as the setup a calibration would produce. */
function labSetup(scene: Scene, config: LabConfig): SetupInput {
  // Motive streams Y-up unless its Up Axis setting says Z; the calibration maps its Z-up view (the
  // same in both) to the table.
  const rotation = axisAngle([0, 0, 1], config.mocap.yaw);
  return {
    name: `virtual-lab-${scene.name}`,
    mocap: {
      setup: `virtual-lab`,
      kind: '3d',
      upAxis: config.mocap.streaming.upAxis,
      rotation,
      translation: config.mocap.offset,
      residual: { rms: 0, max: 0, pairs: 0 },
      // The true offsets of the bodies' pivots, as the calibration wizard measures them.
      pivots: truePivotOffsets(labPivots(scene, config)),
      createdAt: new Date(0).toISOString(),
    },
    // The virtual table is the scene's own.
    table: { size: { x: scene.table.size.x, y: scene.table.size.y } },
    robot: {
      calibration: { yaw: config.robot.tableYaw, offset: config.robot.tableOrigin },
      pusherOffset: config.robot.pusherOffset,
    },
    safety: {
      workspaceMargin: 0.03,
      heightBand: [0, 0.02],
      maxCalibrationResidual: 0.003,
      acceleration: 0.5,
    },
  };
}
