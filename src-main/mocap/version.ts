/** NatNet protocol versions and the layout differences that hang on them. */

/** major, minor, build, revision: what SERVERINFO reports as the NatNet version. */
export type NatNetVersion = readonly [number, number, number, number];

export const NATNET_3_0: NatNetVersion = [3, 0, 0, 0];
export const NATNET_4_1: NatNetVersion = [4, 1, 0, 0];

export function atLeast(v: NatNetVersion, major: number, minor = 0): boolean {
  return v[0] > major || (v[0] === major && v[1] >= minor);
}

/** 4.1 put an int32 byte size after every frame-section count and every model description type. */
export function hasSectionSizes(v: NatNetVersion): boolean {
  return atLeast(v, 4, 1);
}

export function isSupported(v: NatNetVersion): boolean {
  return atLeast(v, 3, 0);
}

export function formatVersion(v: NatNetVersion): string {
  return v.join('.');
}

/** Parses "3", "3.1", "4.1.0.0". */
export function parseVersion(text: string): NatNetVersion | undefined {
  const parts = text.split('.').map((p) => Number(p));
  if (parts.length < 1 || parts.length > 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) {
    return undefined;
  }
  return [parts[0]!, parts[1] ?? 0, parts[2] ?? 0, parts[3] ?? 0];
}
