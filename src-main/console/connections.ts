/**
 * Where the console learns the state of its connections (OptiTrack, UR5, gripper, workers).
 * The lab clients implement ConnectionSource; until they are wired in, every link reports
 * "not configured" honestly instead of pretending to be connected.
 */
import type { Connection } from '../contract/console-api';

export interface ConnectionSource {
  current(): Connection[];
  /** Calls back on every change; returns the unsubscribe function. */
  subscribe(listener: (connections: Connection[]) => void): () => void;
}

const labels: Record<Connection['id'], string> = {
  optitrack: 'OptiTrack',
  ur5: 'UR5',
  gripper: 'Gripper',
  workers: 'Workers',
};

export class UnconfiguredConnections implements ConnectionSource {
  current(): Connection[] {
    return (Object.keys(labels) as Connection['id'][]).map((id) => ({
      id,
      label: labels[id],
      state: 'not-configured',
      latency: null,
      detail: 'no lab is connected to the console yet',
    }));
  }

  subscribe(): () => void {
    return () => {};
  }
}
