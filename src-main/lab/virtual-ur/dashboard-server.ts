/**
 * Dashboard server of the virtual controller (port 29999): the commands and reply texts of a real
 * Dashboard server for the subset the console uses, over the controller's state machine.
 */
import { codeName, ROBOT_MODES, SAFETY_MODES } from '../../robot/rtde/robot-state-codes';
import type { VirtualController } from './controller';
import { LineServer } from './line-server';

export const DASHBOARD_WELCOME = 'Connected: Universal Robots Dashboard Server';

export function dashboardReply(c: VirtualController, line: string): string | undefined {
  const command = line.trim();
  const lower = command.toLowerCase();
  if (lower.startsWith('load ')) {
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
      return 'true';
    case 'polyscopeversion':
      return `URSoftware ${c.version.major}.${c.version.minor}.${c.version.bugfix}.${c.version.build} (virtual)`;
    case 'get robot model':
      return 'UR5';
    case 'quit':
      return undefined;
    default:
      return `could not understand: '${command}'`;
  }
}

export function createDashboardServer(c: VirtualController): LineServer {
  return new LineServer({ welcome: DASHBOARD_WELCOME, reply: (line) => dashboardReply(c, line) });
}
