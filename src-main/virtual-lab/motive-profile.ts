/**
 * What a Motive installation streams and to whom: its version's NatNet bitstreams and the
 * Settings > Streaming choices a lab PC can be left in. Facts (docs/devices.md): Motive 2.1
 * streams NatNet 3.0 (the captured packets in shared/fixtures/natnet), Motive 3.0 NatNet 4.0,
 * Motive 3.1 NatNet 4.1; a unicast client gets the bitstream it announced in CONNECT when Motive
 * knows it (OptiTrack's client announces 4.1), a multicast stream goes out in the bitstream Motive
 * is set to. Motive ships with streaming off and its local interface on loopback, and streams
 * Y-up unless its Up Axis setting says Z (positions always in metres).
 */
import { z } from 'zod';
import { compareVersions, NATNET_3_0, parseVersion, type NatNetVersion } from '../mocap/version';

export const MOTIVE_VERSIONS = {
  '2.1': { natNet: [3, 0, 0, 0], app: [2, 1, 0, 0] },
  '3.0': { natNet: [4, 0, 0, 0], app: [3, 0, 0, 0] },
  '3.1': { natNet: [4, 1, 0, 0], app: [3, 1, 0, 0] },
} as const satisfies Record<string, { natNet: NatNetVersion; app: NatNetVersion }>;

export type MotiveVersion = keyof typeof MOTIVE_VERSIONS;

export const motiveStreamingSchema = z
  .object({
    /** Settings > Streaming > Enable (NatNet): off as Motive ships. */
    enabled: z.boolean().default(true),
    /** Settings > Streaming > Local Interface: 'loopback' (as Motive ships) or the lab network's address. */
    localInterface: z.enum(['loopback', 'network']).default('network'),
    /**
     * Where Motive runs: on a PC of its own on the lab network ('remote', the usual lab), or on
     * the console's PC ('local'). The virtual Motive always binds 127.0.0.1; a remote Motive that
     * streams on loopback is unreachable from the console, so it stays silent.
     */
    host: z.enum(['remote', 'local']).default('remote'),
    /**
     * Settings > Streaming > Up Axis: 'y' as Motive ships, 'z' when set so. The lab's true setup
     * is calibrated with it; a setup written for the other axis is what the console must refuse.
     */
    upAxis: z.enum(['y', 'z']).default('y'),
  })
  .strict();

export type MotiveStreaming = z.infer<typeof motiveStreamingSchema>;

/** A console can hear this Motive at all. */
export function reachable(s: MotiveStreaming): boolean {
  return s.enabled && (s.localInterface === 'network' || s.host === 'local');
}

/** A bitstream version as a lab config writes it ("4.1"); kept as text so a parsed config parses again. */
export const bitstreamSchema = z
  .string()
  .refine((text) => parseVersion(text) !== undefined, { message: 'not a NatNet version (e.g. 4.1)' });

export function bitstream(text: string): NatNetVersion {
  return parseVersion(text) ?? NATNET_3_0;
}

/**
 * The bitstream a unicast client gets: the one it announced, when this Motive streams it (3.0 up
 * to its own); its own newest when the client asked for something newer; otherwise (a client that
 * announces nothing, or something older) the bitstream Motive is set to.
 */
export function unicastBitstream(
  asked: NatNetVersion,
  newest: NatNetVersion,
  setTo: NatNetVersion,
): NatNetVersion {
  if (compareVersions(asked, newest) > 0) return newest;
  if (compareVersions(asked, NATNET_3_0) >= 0) return [asked[0], asked[1], 0, 0];
  return setTo;
}
