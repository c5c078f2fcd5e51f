/**
 * The main thread's view of the devices the safety thread owns: the UR5's RTDE link and the
 * NatNet stream, mirrored from the thread's messages. Main-thread code (the planner's plant, the
 * live view, the recorder, pre-flight, the calibration wizard) reads the latest robot state and
 * every motion-capture frame here, as it read them from the clients themselves.
 *
 * The robot mirror has no motion command: the arm moves only through the thread's supervisor
 * (supervisor-mirror.ts). What it can ask of the robot is a stop and a control program sent
 * again (pre-flight's restart, recovery), both of which leave the arm standing still.
 */
import { EventEmitter } from 'node:events';
import type { ControllerVersion } from '../../robot/rtde/client';
import type { ControlProgramSettings } from '../../robot/control-program';
import type { RobotState } from '../../robot/robot-state';
import { LinkDownError, ProgramNotRunningError } from '../../robot/ur5-connection';
import { JogRefused } from '../../robot/jog';
import type { FrameOfData } from '../../mocap/messages/frame';
import type { MocapSnapshot } from '../../mocap/scene-binding';
import type { MocapStats } from '../../mocap/stats';
import type { RobotInfo, ThreadError } from './messages';
import { RtdeConnectionError } from '../../robot/rtde/client';
import { RtdeSetupError } from '../../robot/rtde/setup-errors';
import { NatNetLinkError } from '../../mocap/client';
import { waitForState } from '../../common/wait-for-state';

type RobotEvents = {
  state: [RobotState];
  linkLost: [Error];
  linkRestored: [];
  reconnectFailed: [Error];
  programSent: [];
  /** What the connection waits for and why (e.g. RTDE inputs held by a previous session). */
  notice: [string];
};

export class RobotMirror extends EventEmitter<RobotEvents> {
  latest: RobotState | undefined;
  linkUp: boolean;
  uploadProblem: string | undefined;
  frequency: number;
  controllerVersion: ControllerVersion | undefined;
  settings: ControlProgramSettings;

  constructor(
    info: RobotInfo,
    private readonly request: {
      sendProgram(): Promise<void>;
      jog(dx: number, dy: number): Promise<number>;
      turn(angle: number): Promise<number>;
      stopJog(): void;
    },
    private readonly sendStop: () => void,
  ) {
    super();
    this.linkUp = info.linkUp;
    this.uploadProblem = info.uploadProblem;
    this.frequency = info.frequency;
    this.controllerVersion = info.controllerVersion;
    this.settings = info.settings;
  }

  /** Takes what the thread reports of the link. */
  info(info: RobotInfo): void {
    this.linkUp = info.linkUp;
    this.uploadProblem = info.uploadProblem;
    this.frequency = info.frequency;
    this.controllerVersion = info.controllerVersion;
    this.settings = info.settings;
  }

  state(s: RobotState): void {
    this.latest = s;
    this.emit('state', s);
  }

  /** The thread ended: no link, and nothing more will come. */
  lost(err: Error): void {
    if (!this.linkUp) return;
    this.linkUp = false;
    this.emit('linkLost', err);
  }

  /** A stop (zero twist), through the thread's robot link; never throws. */
  stop(): undefined {
    this.sendStop();
    return undefined;
  }

  /**
   * Sends the control program again (the thread's connection does the upload and waits for it
   * to run); rejects with ProgramNotRunningError when it does not start.
   */
  sendProgram(): Promise<void> {
    return this.request.sendProgram();
  }

  /**
   * Jogs the tool by (dx, dy) m along the robot base axes (robot/jog.ts), run by the thread that
   * holds the robot link; resolves with the distance moved (m). `signal` stops it.
   */
  async jog(dx: number, dy: number, signal?: AbortSignal): Promise<number> {
    const stop = (): void => this.request.stopJog();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      return await this.request.jog(dx, dy);
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }

  /**
   * Turns the tool by `angle` rad about the vertical through the pusher's tip (robot/jog.ts
   * turnTool); resolves with the angle turned. `signal` stops it.
   */
  async turn(angle: number, signal?: AbortSignal): Promise<number> {
    const stop = (): void => this.request.stopJog();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      return await this.request.turn(angle);
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }

  /** Resolves with the first state (the latest included) that satisfies `predicate`. */
  waitForState(predicate: (s: RobotState) => boolean, timeout = 2): Promise<RobotState> {
    return waitForState(this, predicate, timeout, 'robot state');
  }
}

/** The device errors the thread's work can end in, by name (the RTDE setup refusal apart). */
const DEVICE_ERRORS: Record<string, new (message: string) => Error> = {
  ProgramNotRunningError,
  LinkDownError,
  JogRefused,
  RtdeConnectionError,
  NatNetLinkError,
};

/**
 * Rebuilds an error of the thread's devices (messages.ts ThreadError) as the same kind, so callers
 * tell a lab's state (nothing listens, a refused setup) from a fault of this program.
 */
export function threadError(e: ThreadError): Error {
  if (e.rtdeSetup)
    // Its words as they were written in the thread, whichever of its forms they took.
    return Object.assign(new RtdeSetupError(e.rtdeSetup.direction, e.rtdeSetup.failed), {
      message: e.message,
    });
  const Kind = DEVICE_ERRORS[e.name];
  return Kind ? new Kind(e.message) : new Error(e.message);
}

type FrameListener = (frame: FrameOfData, snapshot: MocapSnapshot) => void;

/** The motion-capture stream as the thread receives it: every frame, and the client's statistics. */
export class MocapMirror {
  private readonly listeners: FrameListener[] = [];
  private stats: MocapStats | undefined;

  constructor(
    readonly appName: string,
    /** Where the client listens: the mocap interface's address and its sockets' ports. */
    readonly localEndpoint: { address: string; commandPort: number; dataPort?: number },
  ) {}

  on(event: 'frame', fn: FrameListener): () => void {
    this.listeners.push(fn);
    return () => {
      const i = this.listeners.indexOf(fn);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  frame(frame: FrameOfData, snapshot: MocapSnapshot): void {
    for (const fn of [...this.listeners]) fn(frame, snapshot);
  }

  statsUpdate(stats: MocapStats): void {
    this.stats = stats;
  }

  /** The client's statistics as last reported (every 250 ms); zeros before the first report. */
  getStats(): MocapStats {
    return (
      this.stats ?? {
        frames: 0,
        frameRate: 0,
        droppedFrames: 0,
        olderFrames: 0,
        unconfirmedFrames: 0,
        repeatedFrames: 0,
        restarts: 0,
        systemLatency: undefined,
        totalLatency: undefined,
        decodeErrors: 0,
        lastDecodeError: undefined,
        foreignPackets: 0,
        spoofSigns: 0,
        lastSpoofSign: undefined,
        roundTrip: undefined,
      }
    );
  }
}
