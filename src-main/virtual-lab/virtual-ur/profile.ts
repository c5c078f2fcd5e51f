/**
 * What the virtual controller is, by software version (docs/devices.md): a CB3 (3.x), an
 * e-Series (5.x) or a PolyScope X controller (10.x). The version decides the control rate
 * (125 Hz / 500 Hz, RTDE guide), which dashboard commands exist (URCL's dashboard client lists each
 * with the version it appeared in), whether there is a Dashboard server at all (not on PolyScope X,
 * whose Robot API replaces it: URCL's dashboard client documentation), whether there is a Local /
 * Remote Control mode (e-Series; asked from 5.6 on), and which stopl the script manual documents.
 */
import { z } from 'zod';

export interface ControllerVersion {
  major: number;
  minor: number;
  bugfix: number;
  build: number;
}

export interface ControllerProfile {
  series: 'cb3' | 'e-series' | 'polyscope-x';
  version: ControllerVersion;
  /** Control and maximum RTDE output rate, Hz. */
  frequency: 125 | 500;
  /** A Dashboard server listens on 29999 (CB3 and e-Series; PolyScope X has none). */
  dashboard: boolean;
}

/** `3.15`, `5.11`, `5.11.1`, `5.11.1.108318` or `10.7`: a CB3, e-Series or PolyScope X version. */
export const softwareVersionSchema = z
  .string()
  .regex(
    /^(3|5|10)\.\d{1,2}(\.\d+){0,2}$/,
    'must be a CB3 (3.x), e-Series (5.x) or PolyScope X (10.x) software version, e.g. 3.15 or 5.11',
  )
  .describe('PolyScope software version: 3.x is a CB3, 5.x an e-Series, 10.x PolyScope X');

/** The builds of the two versions the lab is tried with; any other gets build 0. */
const KNOWN_BUILDS: Record<string, [number, number]> = {
  '3.15': [7, 106331],
  '5.11': [1, 108318],
};

export function controllerProfile(software: string): ControllerProfile {
  const [major, minor, bugfix, build] = softwareVersionSchema.parse(software).split('.').map(Number) as [
    number,
    number,
    number?,
    number?,
  ];
  const known = KNOWN_BUILDS[`${major}.${minor}`];
  const version: ControllerVersion = {
    major,
    minor,
    bugfix: bugfix ?? known?.[0] ?? 0,
    build: build ?? known?.[1] ?? 0,
  };
  if (major === 3) return { series: 'cb3', version, frequency: 125, dashboard: true };
  if (major === 5) return { series: 'e-series', version, frequency: 500, dashboard: true };
  return { series: 'polyscope-x', version, frequency: 500, dashboard: false };
}

/** Whether the controller's software is at least major.minor. */
export function atLeast(v: ControllerVersion, major: number, minor: number): boolean {
  return v.major > major || (v.major === major && v.minor >= minor);
}

/** The version a given control rate stands for when none is named (older lab configs). */
export function softwareForFrequency(frequency: 125 | 500 | undefined): string {
  return frequency === 125 ? '3.15' : '5.11';
}
