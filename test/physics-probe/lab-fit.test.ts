/**
 * The console's physics fit (physics-probe/lab-fit.ts): the scene's identification runs in the
 * sessions folder (not its other runs), fitted and saved where the lab's runs of the scene find it.
 * The logs are simulated lab runs (lab-physics's test logs) of objects 1.5 times as grippy as the
 * scene says.
 */
import { mkdtempSync, renameSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inProcessReplay } from '../../src-main/lab-physics/prediction-error';
import { loadPhysicsProfile } from '../../src-main/lab-physics/profile-file';
import {
  fitLabPhysics,
  physicsProfileFile,
  PROBE_LOG_LABEL,
  withLabPhysics,
} from '../../src-main/physics-probe/lab-fit';
import { boxScene, PROBE_CONTROLS, scaledPhysics, simulatedLabLog } from '../lab-physics/simulated-lab-log';

const replay = inProcessReplay();
afterAll(() => replay.dispose());

describe("the console's physics fit", () => {
  it('fits the identification runs of the scene, says the error before and after, and saves it for its runs', async () => {
    const sessions = mkdtempSync(path.join(os.tmpdir(), 'lab-fit-sessions-'));
    const physics = mkdtempSync(path.join(os.tmpdir(), 'lab-fit-physics-'));
    const model = boxScene();
    const world = scaledPhysics(model, { friction: 1.5 });
    const mirrored = PROBE_CONTROLS.map(([vx, vy]) => [vx, -vy] as [number, number]);
    for (const [i, controls] of [PROBE_CONTROLS, mirrored, [...PROBE_CONTROLS].reverse()].entries()) {
      const file = await simulatedLabLog({
        dir: sessions,
        world,
        model,
        controls,
        noise: 0.0003,
        seed: i + 1,
      });
      renameSync(file, file.replace(/_dry\.mcap$/, `_${PROBE_LOG_LABEL}.mcap`));
    }
    // A task run of the scene: not an identification run, left out.
    await simulatedLabLog({ dir: sessions, world, model, controls: PROBE_CONTROLS.slice(0, 2), seed: 9 });
    expect(withLabPhysics(model, physics)).toEqual(model);

    // The objects' friction alone, on the smallest budget: the test's time, not the console's fit.
    const fit = await fitLabPhysics({
      sessionsDir: sessions,
      scene: model,
      replay,
      dir: physics,
      parameters: ['friction'],
      maxEvaluations: 4,
    });
    expect(fit).toMatchObject({
      scene: model.name,
      runs: 3,
      heldOut: 1,
      profile: physicsProfileFile(model.name, physics),
    });
    // How well the fit recovers the truth is lab-physics's (test/lab-physics/physics-fit.test.ts);
    // here: what was fitted, and the errors said, before and after, as the fit measured them.
    expect(fit.estimates.map((e) => e.parameter)).toEqual(['friction']);
    for (const e of [fit.before, fit.after]) {
      expect(e.p50).toBeGreaterThan(0);
      expect(e.p95).toBeGreaterThanOrEqual(e.p50);
    }
    const profile = loadPhysicsProfile(fit.profile);
    expect(
      profile.provenance.logs.map((l) => path.basename(l.file).endsWith(`_${PROBE_LOG_LABEL}.mcap`)),
    ).toEqual([true, true, true]);
    const planned = withLabPhysics(model, physics);
    expect(planned.sliders[0]!.friction).toBeCloseTo(profile.objects[0]!.friction, 12);
  }, 300_000);
});
