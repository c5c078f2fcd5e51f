/**
 * A stand-in for the lab's data streams during a run: robot state at 500 Hz and motion capture at
 * 120 Hz (frame + derived poses + scene state), one planner step per second. A 1 ms timer checks
 * how many messages are due by the monotonic clock and produces exactly those, so the rates hold
 * whatever the timer jitter. `sink` receives everything (a recorder, or nothing for a baseline).
 */
import { performance } from 'node:perf_hooks';
import { mocapFrame, planarPoses, plannerStep, robotState, stateEvent } from './sample-messages';
import type { SessionRecorder } from '../../src-main/session/recorder';

export interface LabStreamRates {
  robotHz: number;
  mocapHz: number;
  plannerHz: number;
}

export const labRates: LabStreamRates = { robotHz: 500, mocapHz: 120, plannerHz: 1 };

export interface LabStream {
  stop(): { robot: number; mocap: number; planner: number };
}

export function startLabStream(
  recorder: SessionRecorder | null,
  rates: LabStreamRates = labRates,
): LabStream {
  const t0 = performance.now();
  const sent = { robot: 0, mocap: 0, planner: 0 };
  const tick = () => {
    const t = (performance.now() - t0) / 1000;
    // The work a control loop does with each message (decode stand-in), recorded or not.
    for (; sent.robot < Math.floor(t * rates.robotHz); sent.robot++) {
      const s = robotState(sent.robot / rates.robotHz);
      recorder?.robotState(s);
    }
    for (; sent.mocap < Math.floor(t * rates.mocapHz); sent.mocap++) {
      const tm = sent.mocap / rates.mocapHz;
      const frame = mocapFrame(sent.mocap, tm);
      const poses = planarPoses(sent.mocap, tm);
      const state = stateEvent(tm);
      if (recorder) {
        recorder.mocapFrame(frame);
        recorder.poses(poses);
        recorder.event(state);
      }
    }
    for (; sent.planner < Math.floor(t * rates.plannerHz); sent.planner++) {
      const step = plannerStep(sent.planner, sent.planner / rates.plannerHz);
      recorder?.event({ type: 'planner-step', step });
    }
  };
  const timer = setInterval(tick, 1);
  return {
    stop() {
      clearInterval(timer);
      return { ...sent };
    },
  };
}
