/**
 * A finger device: the two fingers on the arm's flange, which hold the pusher or are a gripper
 * tool's fingers (contract/end-effector). The lab link and the run depend on this interface only;
 * the Robotiq 2-finger client (robot/gripper.ts) implements it, for a real Robotiq and for the
 * virtual lab's, which speaks the same protocol (virtual-lab/virtual-gripper.ts).
 *
 * Positions and speeds are the device's register values (0 open .. 255 closed; robot/gripper.ts
 * turns them into metres with the measured range).
 */
import type { EventEmitter } from 'node:events';

export type FaultClass = 'none' | 'priority' | 'minor' | 'major' | 'unknown';

export interface GripperFault {
  code: number;
  class: FaultClass;
  description: string;
  /** Major faults clear only by toggling ACT (a re-activation). */
  needsReactivation: boolean;
}

export interface GripperStatus {
  activation: number;
  object: number;
  position: number;
  fault: GripperFault;
}

/** Why the pusher can no longer be trusted: each is a stop reason for the supervisor. */
export type GripperStopReason =
  | { kind: 'pusher-lost'; object: number }
  | { kind: 'fault'; fault: GripperFault }
  | { kind: 'emergency-stop' }
  | { kind: 'link-lost'; message: string };

export interface GripOptions {
  /** 0..255 each. */
  position?: number;
  speed?: number;
  force?: number;
  /** s */
  timeout?: number;
}

/** Its events: why it can no longer be trusted ('stop', once), each finger position it reads. */
export type FingerDeviceEvents = { stop: [GripperStopReason]; position: [number] };

export interface FingerDevice extends Pick<
  EventEmitter<FingerDeviceEvents>,
  'on' | 'off' | 'removeAllListeners'
> {
  /** Activation, object, position and fault as the device reports them now. */
  status(): Promise<GripperStatus>;
  /** Resets and activates it (clearing a major fault); resolves once active. */
  activate(timeout?: number): Promise<void>;
  /** Starts a finger motion to `position` at `speed` and `force`; resolves once acknowledged. */
  move(position: number, speed: number, force: number): Promise<void>;
  /** Grips the pusher and confirms it is held; throws when the fingers close on nothing or fault. */
  closeOnPusher(options?: GripOptions): Promise<GripperStatus>;
  /** Opens fully; throws when something stops the fingers or on a fault. */
  openFully(timeout?: number): Promise<GripperStatus>;
  /** Closes fully with nothing between the fingers; throws when something stops them or on a fault. */
  closeFully(timeout?: number): Promise<GripperStatus>;
  /**
   * Watches for faults, an emergency stop and a lost link, and for the pusher slipping while it
   * `holdsPusher`; otherwise reports each finger position. Emits one 'stop' and ends.
   */
  startMonitor(holdsPusher?: boolean): void;
  stopMonitor(): void;
  close(): void;
}
