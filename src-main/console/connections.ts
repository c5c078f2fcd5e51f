/**
 * Where the console learns the state of its lab: each connection (OptiTrack, UR5, gripper,
 * workers) and the pre-flight checklist as the lab stands now. The live implementation reads a
 * LabLink (lab-connections.ts); without a lab every link reports "not configured" honestly
 * instead of pretending to be connected.
 */
import type { Connection, PreflightReportPayload } from '../contract/console-api';

export interface LabStatus {
  connections: Connection[];
  /** The pre-flight checklist now; null when no lab is connected to check. */
  preflight: PreflightReportPayload | null;
}

export interface ConnectionSource {
  current(): LabStatus;
  /** Calls back on every change; returns the unsubscribe function. */
  subscribe(listener: (status: LabStatus) => void): () => void;
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
    };
  }

  subscribe(): () => void {
    return () => {};
  }
}
