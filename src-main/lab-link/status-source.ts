/**
 * Where the console learns the state of its lab: each connection (OptiTrack, UR5, gripper,
 * workers) and the pre-flight checklist as the lab stands now. The live implementation reads a
 * LabLink (lab-status.ts); without a lab every link reports "not configured" honestly
 * instead of pretending to be connected.
 */
import type { Connection, PreflightReportPayload, RunStatus } from '#contract/console-api';
import type { LabView } from '#contract/lab-view';
import type { Scene } from '#contract/scene';

export interface LabStatus {
  connections: Connection[];
  /** The pre-flight checklist now; null when no lab is connected to check. */
  preflight: PreflightReportPayload | null;
  /** Which lab, its scene and its setup's frames; null (or absent) when no lab is configured. */
  lab?: LabView | null;
  /**
   * The robot's safety as it reports it now (its safety mode): what the status bar shows before
   * the first run; unknown (or absent) without fresh robot state.
   */
  safety?: RunStatus['safety'];
}

export interface ConnectionSource {
  current(): LabStatus;
  /** Calls back on every change; returns the unsubscribe function. */
  subscribe(listener: (status: LabStatus) => void): () => void;
  /**
   * The console's scene (the one the next run opens the lab on): the pre-flight checklist judges
   * it, so the Setup view and the table view speak of the same scene. Null: none loaded.
   */
  useScene?(scene: Scene | null): void;
}

export const connectionLabels: Record<Connection['id'], string> = {
  optitrack: 'OptiTrack',
  ur5: 'UR5',
  gripper: 'Gripper',
  workers: 'Workers',
};

export const connectionIds = Object.keys(connectionLabels) as Connection['id'][];

export class UnconfiguredConnections implements ConnectionSource {
  current(): LabStatus {
    return {
      connections: connectionIds.map((id) => ({
        id,
        label: connectionLabels[id],
        state: 'not-configured',
        latency: null,
        detail: 'no lab is connected to the console yet',
      })),
      preflight: null,
      lab: null,
      safety: 'unknown',
    };
  }

  subscribe(): () => void {
    return () => {};
  }
}
