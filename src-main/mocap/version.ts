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

/** Compares major.minor only (build and revision never change a layout). */
export function compareVersions(a: NatNetVersion, b: NatNetVersion): number {
  return a[0] - b[0] || a[1] - b[1];
}

/**
 * The bitstreams this console decodes: the layouts its codec implements and its tests pin with
 * captured or reference-decoded packets. A newer bitstream may add fields before the ones we read,
 * so it is refused rather than guessed at.
 */
export const DECODABLE = { oldest: NATNET_3_0, newest: NATNET_4_1 } as const;

/** What the client announces in CONNECT: the newest bitstream it decodes, as OptiTrack's own client. */
export const ANNOUNCED_VERSION: NatNetVersion = DECODABLE.newest;

export function canDecode(v: NatNetVersion): boolean {
  return compareVersions(v, DECODABLE.oldest) >= 0 && compareVersions(v, DECODABLE.newest) <= 0;
}

function majorMinor(v: NatNetVersion): string {
  return `${v[0]}.${v[1]}`;
}

/**
 * Why a stream in NatNet `v` (as SERVERINFO says) cannot be read, with the Motive setting that
 * fixes it; undefined when it can. A unicast client gets the bitstream it announced when Motive
 * knows it, so this is reached by a multicast stream set to another bitstream, or a Motive older
 * than the oldest bitstream we decode.
 */
export function streamVersionProblem(v: NatNetVersion): string | undefined {
  if (canDecode(v)) return undefined;
  const range = `${majorMinor(DECODABLE.oldest)}..${majorMinor(DECODABLE.newest)}`;
  const fix =
    compareVersions(v, DECODABLE.newest) > 0
      ? `${majorMinor(DECODABLE.newest)}, or stream unicast (the console asks for ${majorMinor(ANNOUNCED_VERSION)})`
      : `${majorMinor(DECODABLE.oldest)} or newer (Motive 2.0 and later stream NatNet 3)`;
  return `Motive streams NatNet ${majorMinor(v)}; this console decodes ${range}: set Motive's Streaming > Bitstream version to ${fix}`;
}
