/**
 * The console's connections to a lab, real or virtual (it cannot tell): the UR5 (RTDE + control
 * program), its dashboard, the Robotiq gripper and the NatNet motion-capture stream. Keeps the
 * latest state of each, judged fresh or stale at the moment it is asked.
 *
 * The streaming devices belong to the safety thread (safety-thread/): the RTDE link and the
 * NatNet client run there with each run's supervisor, on an event loop nothing else shares. This
 * link holds their mirrors (`robot`, `natnet`: the latest robot state, every frame) and the
 * request/response devices, the dashboard and the Robotiq, which stay on the main thread.
 *
 * The Robotiq holds the pusher in a pusher scene; in a gripper scene it is the robot, opened fully
 * before a run, its opening read back continuously (and sent to the thread), and its fingers moved
 * only when the run's supervisor in the thread sends a finger move.
 */
import { DashboardClient, LOCAL_MODE } from '../robot/dashboard';
import type { FingerDevice } from '../robot/finger-device';
import { probeSupportedController } from '../robot/controller-support';
import {
  GripperError,
  ObjectStatus,
  openingAt,
  positionFor,
  RobotiqGripper,
  speedRegisterFor,
  type PositionRange,
} from '../robot/gripper';
import {
  asPositionRange,
  loadGripperRange,
  measureGripperRange,
  saveGripperRange,
} from '../robot/gripper-range';
import { programPlaying } from '../robot/robot-state';
import { ProgramNotRunningError } from '../robot/ur5-connection';
import type { ControllerReadiness } from '../safety/preflight';
import { bindingFromScene, type PlanarPoses } from '../mocap/scene-binding';
import { StateEstimator, type PusherFromRobot, type TableEstimate } from '../mocap/state-estimator';
import { endEffectorOf } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import { layoutForScene } from '#contract/state';
import type { Setup } from '../calibration/setup-file';
import type { SupervisedFingers } from '../safety/supervisor';
import type { MocapMirror, RobotMirror } from './safety-thread/mirrors';
import {
  MocapInterfaceError,
  mocapInterface,
  type InterfaceTable,
  type MocapInterface,
} from '../mocap/mocap-interface';
import type { MocapSnapshot } from '../mocap/scene-binding';
import { SafetyThread } from './safety-thread/safety-thread';

/** Period of the supervisor's watchdog tick in the safety thread, s. */
const TICK = 0.005;

/**
 * Force register of a gripper scene's finger motions (0..255 over the Robotiq's 20..235 N): about
 * 40 N, the grip force of the models' fingers (contract/end-effector/parallel-gripper.ts GRIP_FORCE), which holds a
 * WAFR clutter object without crushing it.
 */
const GRIP_FORCE_REGISTER = 24;

export interface LabAddress {
  robotHost: string;
  mocapHost: string;
  /**
   * Local interface for NatNet: both of the client's sockets bind here and multicast is joined
   * here; '0.0.0.0': the interface on the route to mocapHost.
   */
  mocapLocal: string;
  ports?: { rtde?: number; dashboard?: number; script?: number; gripper?: number; natnetCommand?: number };
  /** This PC's network interfaces (os.networkInterfaces()) unless given: tests give a table. */
  interfaces?: InterfaceTable;
}

/** The address of a lab whose devices all listen on 127.0.0.1 (the virtual lab, or a lab tunnelled to this host). */
export function loopbackLabAddress(ports: {
  rtde: number;
  dashboard: number;
  secondary: number;
  gripper: number;
  natnetCommand: number;
}): LabAddress {
  return {
    robotHost: '127.0.0.1',
    mocapHost: '127.0.0.1',
    mocapLocal: '127.0.0.1',
    ports: {
      rtde: ports.rtde,
      dashboard: ports.dashboard,
      script: ports.secondary,
      gripper: ports.gripper,
      natnetCommand: ports.natnetCommand,
    },
  };
}

/** What restartStoppedProgram did: restarted a program that was not playing (`was`: its state then), or why not. */
export type ProgramRestart = { restarted: true; was: string } | { restarted: false; why: string };

export class LabLink {
  /** Motion capture -> the table's state: the one estimator every run and the live view read. */
  private readonly estimator: StateEstimator;
  private gripperHeld = false;
  private gripperDetail = 'not checked';
  /** A gripper scene's opening as the Robotiq last reported it (m). */
  private opening: number | undefined;
  /** The Robotiq's position range, measured at activation (robot/gripper-range.ts). */
  private gripperRange: PositionRange | undefined;
  /** Where the gripper's URCap answers: its range record is kept under this name. */
  private gripperHost = '';
  private readonly unsubscribe: (() => void)[] = [];
  /** What the devices say they are: the UR controller's software version, the NatNet server's name. */
  private said: { robot: string | null; mocap: string | null } = { robot: null, mocap: null };
  /** The controller's Remote Control mode at connect (undefined: it cannot be asked). */
  private remoteControl: boolean | undefined;
  /** Where the lab is, in words: its robot and motion-capture hosts. */
  description = 'lab';
  /** The network interface motion capture is heard on, judged at connect (mocap/mocap-interface.ts). */
  mocapInterface: MocapInterface | undefined;
  /** The latest motion-capture frame as it arrived: Motive's own axes and units, before calibration. */
  private lastSnapshot: MocapSnapshot | undefined;

  /** The UR5 as the safety thread mirrors it: its latest state, link and program; stops only. */
  readonly robot: RobotMirror;
  /** The motion-capture stream as the safety thread receives it. */
  readonly natnet: MocapMirror;

  private constructor(
    /** The thread that owns the robot command stream, motion capture and every run's supervisor. */
    readonly safety: SafetyThread,
    readonly dashboard: DashboardClient,
    readonly gripper: FingerDevice,
    readonly scene: Scene,
    private current: Setup,
  ) {
    this.robot = safety.robot;
    this.natnet = safety.natnet;
    this.estimator = new StateEstimator({
      binding: bindingFromScene(scene),
      layout: layoutForScene(scene),
      calibration: () => this.current.mocap,
      gripperOpening: () => this.opening,
    });
  }

  /** The lab setup (calibrations, safety envelope) the link reads poses and judges pre-flight with. */
  get setup(): Setup {
    return this.current;
  }

  /**
   * What the lab's devices say of themselves (asked once, at connect): the UR controller's
   * software version ("... (virtual)" on Parapush's virtual UR) and the motion-capture server's
   * application name; null where a device did not say.
   */
  get identity(): { robot: string | null; mocap: string | null } {
    return this.said;
  }

  /** Takes a newly saved setup (the calibration wizard): later frames and checks use it. */
  useSetup(setup: Setup): void {
    this.current = setup;
    this.safety.useSetup(setup);
  }

  static async connect(
    address: LabAddress,
    scene: Scene,
    setup: Setup,
    /** Told what connecting waits for and why (RTDE inputs held by a previous session). */
    onNotice?: (text: string) => void,
  ): Promise<LabLink> {
    const p = address.ports ?? {};
    // The mocap interface before anything else: one that cannot hear Motive is named with its fix,
    // not left to show up as "no motion-capture frame".
    const iface = await mocapInterface(
      address.mocapHost,
      address.mocapLocal,
      p.natnetCommand,
      address.interfaces,
    );
    if (iface.problem) throw new MocapInterfaceError(iface.problem, iface.fix ?? '');
    // The dashboard first: an e-Series in Local mode ignores the program, so it is not sent. A
    // controller without one is named (PolyScope X), not left as a bare connection error.
    const dashboard = await DashboardClient.connect(address.robotHost, p.dashboard ?? 29999).catch(
      async (err: unknown) => {
        await probeSupportedController(address.robotHost, p.rtde ?? 30004);
        throw err;
      },
    );
    const remoteControl = await dashboard.isInRemoteControl();
    let safety: SafetyThread;
    try {
      safety = await SafetyThread.start(
        {
          robot: {
            host: address.robotHost,
            ...(p.rtde ? { rtdePort: p.rtde } : {}),
            ...(p.script ? { scriptPort: p.script } : {}),
            sendProgramOnConnect: remoteControl !== false,
          },
          natnet: {
            serverAddress: address.mocapHost,
            localAddress: address.mocapLocal,
            ...(p.natnetCommand ? { commandPort: p.natnetCommand } : {}),
          },
          scene,
          setup,
          tick: TICK,
        },
        onNotice,
      );
    } catch (err) {
      dashboard.close();
      throw err;
    }
    let gripper: RobotiqGripper;
    try {
      gripper = await RobotiqGripper.connect(address.robotHost, p.gripper ?? 63352);
    } catch (err) {
      await safety.close();
      dashboard.close();
      throw err;
    }
    const link = new LabLink(safety, dashboard, gripper, scene, setup);
    link.remoteControl = remoteControl;
    link.description = `robot ${address.robotHost}, motion capture ${address.mocapHost}`;
    link.mocapInterface = iface;
    link.gripperHost = address.robotHost;
    link.unsubscribe.push(
      safety.natnet.on('frame', (_frame, snapshot) => {
        link.lastSnapshot = snapshot;
        // Every frame reaches the estimator, whether or not anyone listens (`?.()` would skip it).
        const poses = link.estimator.frame(snapshot);
        link.onMocap?.(poses);
      }),
    );
    // The thread's end is each run's stop (its supervisor says why) and a lost robot link.
    safety.on('error', () => undefined);
    safety.on('fingers', ({ id, opening, speed }) => {
      const fingers = link.fingersFor();
      if (!fingers) return safety.fingersDone(id, 'finger moves need a gripper scene');
      fingers.move(opening, speed).then(
        () => safety.fingersDone(id),
        (err: unknown) => safety.fingersDone(id, (err as Error).message),
      );
    });
    // A controller that does not answer the version is still a robot: it just has not said which.
    const robotSaid = await dashboard.polyscopeVersion().catch(() => null);
    link.said = { robot: robotSaid || null, mocap: safety.natnet.appName || null };
    return link;
  }

  /** Called for every decoded motion-capture frame. */
  onMocap: ((poses: PlanarPoses) => void) | undefined;

  /** The latest frame's rigid bodies as Motive streamed them (its axes and units); undefined before any. */
  streamedBodies(): MocapSnapshot['rigidBodies'] | undefined {
    return this.lastSnapshot?.rigidBodies;
  }

  /** Latest poses, re-judged now: they go stale when frames stop arriving. */
  poses(): PlanarPoses | undefined {
    return this.estimator.poses();
  }

  /**
   * The table now (mocap/state-estimator.ts): poses with their ages and the state they give;
   * `pusherFromRobot` places a pusher that carries no markers.
   */
  estimate(pusherFromRobot?: PusherFromRobot): TableEstimate {
    return this.estimator.estimate(pusherFromRobot);
  }

  /** Activates the gripper if needed and closes it on the pusher; true when OBJ = 2. */
  async gripPusher(): Promise<boolean> {
    const s = await this.gripper.status();
    if (s.activation !== 3) await this.gripper.activate();
    try {
      const after = await this.gripper.closeOnPusher();
      this.gripperHeld = after.object === ObjectStatus.HELD;
      this.gripperDetail = `OBJ ${after.object}${this.gripperHeld ? ' (pusher held)' : ''}`;
    } catch (err) {
      // A gripper that closed on nothing or faulted is a red pre-flight check, not a crash.
      if (!(err instanceof GripperError)) throw err;
      this.gripperHeld = false;
      this.gripperDetail = err.message;
    }
    if (this.gripperHeld) this.gripper.startMonitor();
    return this.gripperHeld;
  }

  /**
   * Readies the Robotiq for a run: closed on the pusher in a pusher scene (gripPusher), activated
   * and fully open in a gripper scene. True when ready.
   */
  async prepareGripper(): Promise<boolean> {
    const stroke = endEffectorOf(this.scene).fingers?.maxOpening;
    if (stroke === undefined) return this.gripPusher();
    this.gripper.stopMonitor();
    this.gripper.removeAllListeners('position');
    const s = await this.gripper.status();
    const activating = s.activation !== 3;
    if (activating) await this.gripper.activate();
    try {
      const range = await this.positionRange(activating);
      const after = await this.gripper.openFully();
      const opening = openingAt(after.position, stroke, range);
      this.opening = opening;
      this.safety.opening(opening);
      this.gripperHeld = true;
      this.gripperDetail = `open, ${(opening * 1000).toFixed(0)} mm between the fingers`;
    } catch (err) {
      if (!(err instanceof GripperError)) throw err;
      this.gripperHeld = false;
      this.gripperDetail = err.message;
    }
    if (this.gripperHeld) {
      const range = this.gripperRange!;
      this.gripper.on('position', (p) => {
        const opening = openingAt(p, stroke, range);
        this.opening = opening;
        this.safety.opening(opening);
      });
      this.gripper.startMonitor(false);
    }
    return this.gripperHeld;
  }

  /**
   * The gripper's position range: measured when it was just activated (as ur_rtde does) or when no
   * record of it exists, and stored; otherwise this gripper's stored record.
   */
  private async positionRange(activated: boolean): Promise<PositionRange> {
    const stored = activated ? undefined : loadGripperRange(this.gripperHost);
    const range = stored ?? (await measureGripperRange(this.gripper));
    if (!stored) saveGripperRange(this.gripperHost, range);
    this.gripperRange = asPositionRange(range);
    return this.gripperRange;
  }

  /**
   * A gripper scene's fingers for the run's supervisor, the one path a run has to them: moves in
   * gaps (m) and opening speeds (m/s), sent as Robotiq register values.
   */
  fingersFor(): SupervisedFingers | undefined {
    const stroke = endEffectorOf(this.scene).fingers?.maxOpening;
    if (stroke === undefined) return undefined;
    const opening = (): number | undefined => this.opening;
    const range = (): PositionRange => {
      if (!this.gripperRange) throw new GripperError('gripper range not measured: prepare the gripper first');
      return this.gripperRange;
    };
    return {
      get opening() {
        return opening();
      },
      move: (opening, speed) =>
        this.gripper.move(
          positionFor(opening, stroke, range()),
          speedRegisterFor(speed),
          GRIP_FORCE_REGISTER,
        ),
    };
  }

  /**
   * Sends the control program again when it stopped while nothing was armed: its RTDE watchdog
   * halts it when this process stalls for 0.3 s, as starting the planner's workers can on a
   * loaded machine, and a stop of the last run may have ended it. Restarting it moves nothing (it
   * waits for a re-arm). A robot that is not running normally (a protective or emergency stop) is
   * left to the operator's recovery; the pre-flight checks judge the program either way. Says what
   * it did, so that a restart is never silent: the caller tells the operator.
   */
  async restartStoppedProgram(): Promise<ProgramRestart> {
    // The operator may have switched the pendant to Remote Control since: ask again.
    this.remoteControl = await this.dashboard.isInRemoteControl().catch(() => this.remoteControl);
    const s = this.robot.latest;
    if (!s) return { restarted: false, why: 'no robot state received' };
    if (programPlaying(s)) return { restarted: false, why: 'the control program is playing' };
    if (s.robotMode !== 'RUNNING' || s.safetyMode !== 'NORMAL')
      return {
        restarted: false,
        why: `robot mode ${s.robotMode}, safety mode ${s.safetyMode}: recover the robot first`,
      };
    if (this.remoteControl === false) return { restarted: false, why: LOCAL_MODE };
    const was = `runtime ${s.runtimeState}, program ${s.program.state}`;
    // A program that does not start is a red pre-flight check (uploadProblem), not a failed run.
    const started = await this.robot.sendProgram().then(
      () => true,
      (err: unknown) => {
        if (err instanceof ProgramNotRunningError) return false;
        throw err;
      },
    );
    if (!started)
      return { restarted: false, why: `sent again but it did not start: ${this.robot.uploadProblem ?? was}` };
    await this.robot
      .waitForState((r) => programPlaying(r) && r.program.state === 'ARMED')
      .catch(() => undefined);
    return { restarted: true, was };
  }

  /** What pre-flight needs to name a controller problem: Local mode, a program that did not start. */
  controllerReadiness(): ControllerReadiness {
    return {
      problem: this.remoteControl === false ? LOCAL_MODE : this.robot.uploadProblem,
    };
  }

  gripperStatus(): { held: boolean; detail: string } {
    return { held: this.gripperHeld, detail: this.gripperDetail };
  }

  async close(): Promise<void> {
    for (const u of this.unsubscribe) u();
    this.gripper.stopMonitor();
    // The thread stops the arm and lets go of the robot and motion capture as it ends.
    await this.safety.close();
    this.gripper.close();
    this.dashboard.close();
  }
}
