/**
 * Are the bodies' pivots accounted for? Motive streams a rigid body at its markers' centroid, its
 * axes as the world's when it was created (calibration/pivots.ts), so a setup that holds no pivot
 * offset for a bound body would place that object centimetres off and turned by its creation yaw,
 * silently: nothing else sees it (an object has no second observer, and a table fit to the
 * pusher's raw pivot absorbs the pusher's). A run is refused until each bound body's offset was
 * measured by the wizard, or measured as zero after a pivot reset in Motive.
 */
import { endEffectorOf, type ToolEntries } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import type { Pivots } from '../calibration/pivots';
import type { Check } from './preflight';

/** The fix a red pivot check names. */
export const PIVOT_FIX =
  "measure them in the Setup view's calibration wizard (Pivots: turn the tool for the pusher, place each object on its start pose), or reset each body's pivot onto its object in Motive (Builder pane, Pivot/Orientation) and confirm it with the wizard's check";

export function pivotCheck(scene: ToolEntries & Pick<Scene, 'sliders'>, pivots: Pivots | undefined): Check {
  const id = 'pivots';
  const label = 'Rigid-body pivots measured';
  const bodies = [endEffectorOf(scene).rigidBody, ...scene.sliders.map((s) => s.rigidBody)].filter(
    (b): b is string => b !== undefined,
  );
  const missing = bodies.filter((b) => !pivots?.[b]);
  if (missing.length > 0)
    return {
      id,
      label,
      ok: false,
      reason: `no pivot offset in the setup for ${missing.join(', ')}: Motive streams a body at its markers, not at its object`,
      fix: PIVOT_FIX,
    };
  const how = bodies.map(
    (b) => `${b} ${pivots![b]!.method === 'motive-reset' ? 'reset in Motive' : pivots![b]!.method}`,
  );
  return { id, label, ok: true, reason: bodies.length === 0 ? 'no body bound' : how.join(', ') };
}
