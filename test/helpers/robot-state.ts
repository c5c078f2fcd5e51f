/** Robot states as Ur5Connection decodes them from RTDE, for the tests of what judges them. */
import type { RobotState } from '../../src-main/robot/robot-state';

/**
 * A UR5 ready for a run and at rest: powered on, running, safety normal, the control program
 * playing and armed, the tool 7 cm over the base origin; `fields` replace any of these.
 */
export function readyRobotState(fields: Partial<RobotState> = {}): RobotState {
  return {
    timestamp: 0,
    receivedAt: 0,
    tcpPose: [0, 0, 0.07, 0, 0, 0],
    tcpSpeed: [0, 0, 0, 0, 0, 0],
    robotMode: 'RUNNING',
    safetyMode: 'NORMAL',
    runtimeState: 'PLAYING',
    robotStatus: {
      powerOn: true,
      programRunning: true,
      teachButtonPressed: false,
      powerButtonPressed: false,
    },
    safetyStatus: {
      normal: true,
      reduced: false,
      protectiveStopped: false,
      recoveryMode: false,
      safeguardStopped: false,
      systemEmergencyStopped: false,
      robotEmergencyStopped: false,
      emergencyStopped: false,
      violation: false,
      fault: false,
      stoppedDueToSafety: false,
    },
    speedScaling: 1,
    program: { ackSequence: 0, state: 'ARMED', heartbeat: 0 },
    ...fields,
  };
}
