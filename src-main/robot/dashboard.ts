/**
 * UR Dashboard server client (TCP 29999): state queries parsed into typed values and the recovery
 * commands. Each command checks the reply it expects, so a refusal (an unlock within 5 s of the
 * protective stop, a play without a program) becomes a DashboardRefusedError with the
 * controller's own words. The reply parsers are plain functions of the reply line: whatever the
 * line, they return a known value or throw DashboardRefusedError.
 *
 * Commands differ by software version (URCL's dashboard client lists when each appeared): the
 * client asks `PolyscopeVersion` on connect and asks `safetystatus` from 5.4 on (`safetymode`
 * before, and on every CB3), `is in remote control` from 5.6 on (a CB3 has no Local mode, and an
 * e-Series before 5.6 cannot be asked).
 */
import { LineClient } from './line-client';
import {
  ROBOT_MODES,
  RUNTIME_STATES,
  SAFETY_MODES,
  type RobotModeName,
  type SafetyModeName,
} from './rtde/robot-state-codes';

export class DashboardRefusedError extends Error {
  override name = 'DashboardRefusedError';
  constructor(
    readonly command: string,
    readonly reply: string,
  ) {
    super(`dashboard refused "${command}": ${reply}`);
  }
}

/**
 * A well-formed reply naming a state this client does not know (a newer controller's): not a
 * refusal, and said so.
 */
export class DashboardUnknownStateError extends DashboardRefusedError {
  override name = 'DashboardUnknownStateError';
  constructor(command: string, reply: string, state: string) {
    super(command, reply);
    this.message = `dashboard "${command}": unknown state ${state} (a newer controller than this client knows?)`;
  }
}

export interface ProgramStateReply {
  state: 'STOPPED' | 'PLAYING' | 'PAUSED';
  program: string;
}

const robotModes = new Set<string>(Object.values(ROBOT_MODES));
const safetyModes = new Set<string>(Object.values(SAFETY_MODES));
const runtimeNames = new Set<string>(Object.values(RUNTIME_STATES));

function parseMode(command: string, reply: string, pattern: RegExp, known: Set<string>): string {
  const name = pattern.exec(reply.trim())?.[1]?.toUpperCase();
  if (!name) throw new DashboardRefusedError(command, reply);
  if (!known.has(name)) throw new DashboardUnknownStateError(command, reply, name);
  return name;
}

/** `Robotmode: RUNNING` -> 'RUNNING'. */
export function parseRobotMode(reply: string): RobotModeName {
  return parseMode('robotmode', reply, /^Robotmode:\s*(\w+)/i, robotModes) as RobotModeName;
}

/** `Safetystatus: NORMAL` (or the older `Safetymode: NORMAL`) -> 'NORMAL'. */
export function parseSafetyStatus(reply: string): SafetyModeName {
  return parseMode('safetystatus', reply, /^Safety(?:status|mode):\s*(\w+)/i, safetyModes) as SafetyModeName;
}

/** `PLAYING <program>` -> { state, program }. */
export function parseProgramState(reply: string): ProgramStateReply {
  const m = /^(\w+)\s*(.*)$/.exec(reply.trim());
  if (!m || !runtimeNames.has(m[1]!)) throw new DashboardRefusedError('programState', reply);
  return { state: m[1] as ProgramStateReply['state'], program: m[2] ?? '' };
}

/** `URSoftware 5.11.1.108318 (Jan 01 2022)` -> { major: 5, minor: 11 }; undefined when not a version. */
export function parsePolyscopeVersion(reply: string): SoftwareVersion | undefined {
  const m = /^URSoftware\s+(\d+)\.(\d+)/i.exec(reply.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

export interface SoftwareVersion {
  major: number;
  minor: number;
}

function atLeast(v: SoftwareVersion | undefined, major: number, minor: number): boolean {
  return v !== undefined && (v.major > major || (v.major === major && v.minor >= minor));
}

/** The words pre-flight shows for an e-Series in Local mode. */
export const LOCAL_MODE = 'controller in Local mode: switch to Remote Control on the teach pendant';

/** `true` / `false` (any case, surrounding blanks ignored). */
export function parseRemoteControl(reply: string): boolean {
  const text = reply.trim().toLowerCase();
  if (text !== 'true' && text !== 'false') throw new DashboardRefusedError('is in remote control', reply);
  return text === 'true';
}

export class DashboardClient {
  private constructor(
    private readonly lines: LineClient,
    /** The server's welcome line. */
    readonly welcome: string,
    /** The controller's software version (undefined when it did not say). */
    readonly software: SoftwareVersion | undefined,
  ) {}

  static async connect(host: string, port = 29999, timeout = 2): Promise<DashboardClient> {
    const lines = await LineClient.connect(host, port, 'dashboard', timeout);
    try {
      const welcome = await lines.readLine();
      if (!/Universal Robots Dashboard Server/i.test(welcome)) {
        throw new Error(`dashboard ${host}:${port}: unexpected welcome "${welcome}"`);
      }
      const software = parsePolyscopeVersion(await lines.request('PolyscopeVersion'));
      return new DashboardClient(lines, welcome, software);
    } catch (err) {
      lines.close();
      throw err;
    }
  }

  /** Sends any command and returns the reply line as is. */
  command(text: string): Promise<string> {
    return this.lines.request(text);
  }

  async robotMode(): Promise<RobotModeName> {
    return parseRobotMode(await this.command('robotmode'));
  }

  /** The safety status; `safetymode` on controllers without `safetystatus` (before 5.4, CB3). */
  async safetyStatus(): Promise<SafetyModeName> {
    const command = atLeast(this.software, 5, 4) ? 'safetystatus' : 'safetymode';
    return parseSafetyStatus(await this.command(command));
  }

  async programState(): Promise<ProgramStateReply> {
    return parseProgramState(await this.command('programState'));
  }

  /**
   * Whether external programs may run: `is in remote control` from 5.6 on; true on a CB3 (it has
   * no Local mode); undefined on an e-Series before 5.6 or an unknown version (cannot be asked).
   */
  async isInRemoteControl(): Promise<boolean | undefined> {
    if (atLeast(this.software, 5, 6)) return parseRemoteControl(await this.command('is in remote control'));
    if (this.software?.major === 3) return true;
    return undefined;
  }

  async polyscopeVersion(): Promise<string> {
    return (await this.command('PolyscopeVersion')).trim();
  }

  powerOn(): Promise<void> {
    return this.expect('power on', /^Powering on/i);
  }

  powerOff(): Promise<void> {
    return this.expect('power off', /^Powering off/i);
  }

  brakeRelease(): Promise<void> {
    return this.expect('brake release', /^Brake releasing/i);
  }

  /** Refused by the controller until 5 s after the protective stop. */
  unlockProtectiveStop(): Promise<void> {
    return this.expect('unlock protective stop', /^Protective stop releasing/i);
  }

  closeSafetyPopup(): Promise<void> {
    return this.expect('close safety popup', /^closing safety popup/i);
  }

  closePopup(): Promise<void> {
    return this.expect('close popup', /^closing popup/i);
  }

  restartSafety(): Promise<void> {
    return this.expect('restart safety', /^Restarting safety/i);
  }

  play(): Promise<void> {
    return this.expect('play', /^Starting program/i);
  }

  stop(): Promise<void> {
    return this.expect('stop', /^Stopped/i);
  }

  pause(): Promise<void> {
    return this.expect('pause', /^Pausing program/i);
  }

  load(program: string): Promise<void> {
    return this.expect(`load ${program}`, /^Loading program/i);
  }

  close(): void {
    this.lines.close();
  }

  private async expect(command: string, ok: RegExp): Promise<void> {
    const reply = await this.command(command);
    if (!ok.test(reply.trim())) throw new DashboardRefusedError(command, reply);
  }
}
