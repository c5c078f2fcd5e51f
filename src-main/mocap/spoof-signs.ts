/**
 * Signs that something other than Motive is sending to the client: UDP carries no proof of who
 * sent a datagram, so a stream can only be judged by what a lone Motive never does. Each sign is
 * evidence of a second sender (or of a network the lab does not control); none is proof that a
 * stream without signs is Motive's (docs/motion-capture.md, "Threat model").
 *
 * - `wrong-port`: a datagram from the server's address but not from its command port or the port
 *   its stream comes from (Motive sends each from one socket).
 * - `unsolicited`: a SERVERINFO without an outstanding CONNECT, a MODELDEF nobody asked for, a
 *   RESPONSE to no request, a frame on the command socket of a multicast stream.
 * - `two-numberings`: frames of two numberings at once (an old or far-ahead frame while the
 *   stream goes on), which one Motive's counter cannot produce; a datagram the network reordered
 *   looks the same, and is judged the same: on a lab's own switch it does not happen.
 * - `duplicate-number`: one frame number with two different contents.
 * - `pose-jump`: a body moving faster than anything on the table can while a run is armed.
 */
import { z } from 'zod';

export const spoofSignKinds = [
  'wrong-port',
  'unsolicited',
  'two-numberings',
  'duplicate-number',
  'pose-jump',
] as const;
export type SpoofSignKind = (typeof spoofSignKinds)[number];

export const spoofSignSchema = z
  .object({
    kind: z.enum(spoofSignKinds),
    /** What was seen, in words the operator reads after "may be spoofed: ". */
    detail: z.string(),
    /** Local time it was seen (s, the motion-capture clock). */
    at: z.number(),
  })
  .strict();
export type SpoofSign = z.infer<typeof spoofSignSchema>;

/**
 * A stream that showed a sign this recently (s) is not trusted to arm a run. Longer than a
 * pre-flight check takes and than the gaps a sender that repeats its attempt needs to leave to
 * be effective; short enough that a lab that fixed the cause can go on.
 */
export const SUSPECT_HOLD = 5;

/** The latest of two signs (either may be missing). */
export function latestSign(a: SpoofSign | undefined, b: SpoofSign | undefined): SpoofSign | undefined {
  if (!a) return b;
  if (!b) return a;
  return b.at >= a.at ? b : a;
}

/** `sign` when it was seen within SUSPECT_HOLD before `now`, else undefined. */
export function recentSign(sign: SpoofSign | undefined, now: number): SpoofSign | undefined {
  return sign && now - sign.at <= SUSPECT_HOLD ? sign : undefined;
}
