/**
 * Dashboard server of the virtual controller (port 29999): the commands and reply texts of a real
 * Dashboard server for the subset the console uses, over the controller's state machine, by
 * software version (docs/devices.md): a command the version does not have gets the reply any
 * unknown command gets, and an e-Series in Local mode refuses the commands that act on the robot.
 */
import { codeName, ROBOT_MODES, SAFETY_MODES } from '../../robot/rtde/robot-state-codes';
import type { VirtualController } from './controller';
import { LineServer } from './line-server';
import { atLeast } from './profile';

export const DASHBOARD_WELCOME = 'Connected: Universal Robots Dashboard Server';

/**
 * The first version with each command that is not in every CB3 and e-Series version
 * (URCL dashboard_client_implementation_g5.cpp): [CB3, e-Series], undefined where the series has none.
 */
const INTRODUCED: Record<string, [[number, number] | undefined, [number, number]]> = {
  safetystatus: [undefined, [5, 4]],
  'is in remote control': [undefined, [5, 6]],
  'get robot model': [
    [3, 12],
    [5, 6],
  ],
  'restart safety': [
    [3, 7],
    [5, 1],
  ],
};

/** What the Dashboard server answers to a command it does not know. */
export function notUnderstood(command: string): string {
  return `could not understand: '${command}'`;
}

/**
 * Commands that act on the robot, refused in Local mode. The wording of the refusal is the
 * model's: the public sources read (URCL, ur_rtde) name the rule, not the reply text.
 */
const REMOTE_ONLY = new Set([
  'power on',
  'power off',
  'brake release',
  'unlock protective stop',
  'restart safety',
  'play',
  'stop',
  'pause',
  'load',
]);
export const LOCAL_MODE_REFUSAL =
  'Command is not allowed due to safety reasons. Switch to Remote Control mode';

function exists(c: VirtualController, command: string): boolean {
  const since = INTRODUCED[command];
  if (!since) return true;
  const at = c.profile.series === 'cb3' ? since[0] : since[1];
  return at !== undefined && atLeast(c.version, at[0], at[1]);
}

export function dashboardReply(c: VirtualController, line: string): string | undefined {
  const command = line.trim();
  const lower = command.toLowerCase();
  const verb = lower.startsWith('load ') ? 'load' : lower;
  if (!exists(c, verb)) return notUnderstood(command);
  if (!c.remoteControl && REMOTE_ONLY.has(verb)) return LOCAL_MODE_REFUSAL;
  if (verb === 'load') {
    const file = command.slice(5).trim();
    if (!file.endsWith('.urp')) return `File not found: ${file}`;
    c.programName = file;
    return `Loading program: ${file}`;
  }
  switch (lower) {
    case 'robotmode':
      return `Robotmode: ${codeName(ROBOT_MODES, c.robotMode)}`;
    case 'safetymode':
      return `Safetymode: ${codeName(SAFETY_MODES, c.safetyMode)}`;
    case 'safetystatus':
      return `Safetystatus: ${codeName(SAFETY_MODES, c.safetyMode)}`;
    case 'programstate':
      return `${c.runtime} ${c.programName}`;
    case 'running':
      return `Program running: ${c.runtime === 'PLAYING'}`;
    case 'get loaded program':
      return `Loaded program: ${c.programName}`;
    case 'power on':
      return c.powerOnArm();
    case 'power off':
      return c.powerOffArm();
    case 'brake release':
      return c.brakeRelease();
    case 'unlock protective stop':
      return c.unlockProtectiveStop();
    case 'close safety popup':
      return c.closeSafetyPopup();
    case 'close popup':
      return 'closing popup';
    case 'restart safety':
      return 'Restarting safety';
    case 'play':
      return c.play();
    case 'stop':
      return c.stopProgram();
    case 'pause':
      return c.pauseProgram();
    case 'is in remote control':
      return String(c.remoteControl);
    case 'polyscopeversion':
      return `URSoftware ${c.version.major}.${c.version.minor}.${c.version.bugfix}.${c.version.build} (virtual)`;
    case 'get robot model':
      return 'UR5';
    case 'quit':
      return undefined;
    default:
      return notUnderstood(command);
  }
}

export function createDashboardServer(c: VirtualController): LineServer {
  return new LineServer({ welcome: DASHBOARD_WELCOME, reply: (line) => dashboardReply(c, line) });
}
