/**
 * What the virtual controller is, by software version (docs/devices.md): a CB3 (3.x) or an
 * e-Series (5.x). The version decides the control rate (125 Hz / 500 Hz, RTDE guide), which
 * dashboard commands exist (URCL's dashboard client lists each with the version it appeared in),
 * and whether there is a Local / Remote Control mode (e-Series; asked from 5.6 on).
 */
import { z } from 'zod';

export interface ControllerVersion {
  major: number;
  minor: number;
  bugfix: number;
  build: number;
}

export interface ControllerProfile {
  series: 'cb3' | 'e-series';
  version: ControllerVersion;
  /** Control and maximum RTDE output rate, Hz. */
  frequency: 125 | 500;
}

/** `3.15`, `5.11`, `5.11.1` or `5.11.1.108318`: a CB3 or e-Series software version. */
export const softwareVersionSchema = z
  .string()
  .regex(
    /^[35]\.\d{1,2}(\.\d+){0,2}$/,
    'must be a CB3 (3.x) or e-Series (5.x) software version, e.g. 3.15 or 5.11',
  )
  .describe('PolyScope software version: 3.x is a CB3, 5.x an e-Series');

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
  return major === 3
    ? { series: 'cb3', version, frequency: 125 }
    : { series: 'e-series', version, frequency: 500 };
}

/** Whether the controller's software is at least major.minor. */
export function atLeast(v: ControllerVersion, major: number, minor: number): boolean {
  return v.major > major || (v.major === major && v.minor >= minor);
}

/** The version a given control rate stands for when none is named (older lab configs). */
export function softwareForFrequency(frequency: 125 | 500 | undefined): string {
  return frequency === 125 ? '3.15' : '5.11';
}
