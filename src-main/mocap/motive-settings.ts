/**
 * Motive's streaming settings as the console sees them from what arrives, each misconfiguration
 * with the Motive setting that fixes it. Motive ships with streaming off and its local interface
 * on loopback [OptiTrack documentation, Settings: Streaming], so a lab PC on its first day hears
 * nothing at all: that silence is named with its fix, never left as a bare timeout.
 */

/** The fix for a Motive that does not answer or sends no frames. */
export const NO_FRAMES_FIX =
  "in Motive, Settings > Streaming: enable NatNet streaming and set Local Interface to the lab network's address";

/** What the operator reads when the command port stays silent. */
export function noAnswerProblem(server: string): string {
  return `no frames: no answer from Motive at ${server}; ${NO_FRAMES_FIX}`;
}
