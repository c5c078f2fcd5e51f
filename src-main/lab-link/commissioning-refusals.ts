/**
 * Every refusal a lab's commissioning can meet, what it means and its fix, taken from the texts the
 * checks themselves print: docs/commissioning.md's table is this list (test/docs/commissioning-
 * refusals.test.ts compares them), so the page cannot drift from what the console says.
 */
import { POLYSCOPE_X_UNSUPPORTED, inputsHeldNotice } from '../robot/controller-support';
import { LOCAL_MODE } from '../robot/dashboard';
import { NO_FRAMES_FIX } from '../mocap/motive-settings';
import { MOCAP_INTERFACE_FIX, ROUTED_MOCAP_FIX } from '../mocap/mocap-interface';
import { UNITS_FIX, UP_AXIS_FIX } from '../mocap/streamed-axes';
import { streamVersionProblem } from '../mocap/version';
import { FORCE_LIMIT_FIX, REACH_FIX, SPEED_SLIDER_FIX } from '../safety/controller-checks';

export interface CommissioningRefusal {
  /** Where it shows: the check's label, or the step that is refused. */
  where: string;
  /** What the console found, in short. */
  means: string;
  /** The fix as the console prints it (placeholders in capitals where it names an address). */
  fix: string;
}

/** The bitstream fix as the console prints it, after the problem's own words. */
const bitstreamFix = (problem: string | undefined): string => problem!.slice(problem!.indexOf('set Motive'));

export const COMMISSIONING_REFUSALS: readonly CommissioningRefusal[] = [
  {
    where: 'Connect; Motion capture fresh',
    means: 'no answer from Motive: streaming is off (as Motive ships) or on loopback on another PC',
    fix: NO_FRAMES_FIX,
  },
  {
    where: 'Connect; Motion capture heard on the interface of the route to Motive',
    means:
      'the mocap interface set by hand is not the one the route to Motive leaves through (a second network card)',
    fix: MOCAP_INTERFACE_FIX('ROUTE_ADDRESS'),
  },
  {
    where: 'Connect; Motion capture heard on the interface of the route to Motive',
    means: "Motive is on no network of this PC's cards, behind a router multicast does not cross",
    fix: ROUTED_MOCAP_FIX,
  },
  {
    where: "Motive's up axis and units as the setup's",
    means: 'Motive streams Z-up to a setup written and calibrated Y-up',
    fix: UP_AXIS_FIX('y'),
  },
  {
    where: "Motive's up axis and units as the setup's",
    means: 'Motive streams Y-up to a setup written and calibrated Z-up',
    fix: UP_AXIS_FIX('z'),
  },
  {
    where: "Motive's up axis and units as the setup's",
    means: 'positions arrive in millimetres (a body farther from the origin than any room)',
    fix: UNITS_FIX,
  },
  {
    where: 'Connect',
    means: 'Motive streams a NatNet bitstream older than the console decodes (multicast)',
    fix: bitstreamFix(streamVersionProblem([2, 9, 0, 0])),
  },
  {
    where: 'Connect',
    means: 'Motive streams a NatNet bitstream newer than the console decodes (multicast)',
    fix: bitstreamFix(streamVersionProblem([4, 9, 0, 0])),
  },
  {
    where: 'Connect',
    means: 'a PolyScope X controller (10.x): no Dashboard server',
    fix: POLYSCOPE_X_UNSUPPORTED.slice(POLYSCOPE_X_UNSUPPORTED.lastIndexOf('; ') + 2),
  },
  {
    where: 'Control program running',
    means: 'an e-Series in Local mode ignores the control program',
    fix: LOCAL_MODE.slice(LOCAL_MODE.indexOf(': ') + 2),
  },
  {
    where: 'Speed slider at 100 %',
    means: 'the pendant speed slider below 100 % would run every motion slower than planned',
    fix: SPEED_SLIDER_FIX,
  },
  {
    where: "Workspace within the UR5's reach, away from singular zones",
    means: "a corner of the task's region beyond the UR5's reach, or near its base axis",
    fix: REACH_FIX,
  },
  {
    where: "Objects pushable within the controller's force limit",
    means: 'an object needs more than half the tool force limit to slide: the controller would stop',
    fix: FORCE_LIMIT_FIX,
  },
  {
    where: 'Connect (not a refusal: waited out)',
    means: 'RTDE inputs still held by the session a pulled cable cut off',
    fix: `none: the console says "${inputsHeldNotice(10)}" and connects once the controller frees them`,
  },
];

/** The list as docs/commissioning.md's table (Markdown). */
export function refusalsTable(list: readonly CommissioningRefusal[] = COMMISSIONING_REFUSALS): string {
  const cell = (s: string): string => s.replace(/\|/g, '\\|');
  return [
    '| where it shows | what it means | fix (as the console prints it) |',
    '| --- | --- | --- |',
    ...list.map((r) => `| ${cell(r.where)} | ${cell(r.means)} | ${cell(r.fix)} |`),
  ].join('\n');
}
