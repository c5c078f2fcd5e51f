/**
 * Accuracy of the fine model's integrator settings, for choosing the planner's prediction model:
 * random off-centre pushes of 4 s on the isrr-obstacle cylinder, each predicted with every
 * (integrator, timestep) and compared with MuJoCo RK4 at 1 ms (the execution world). Beside them:
 * RK4 1 ms from a start moved by 1 um (how chaotic off-centre pushing is) and the real-world spread
 * of a comparable push (ISRR 2019: 8.1 mm / 4.2 deg), below which a difference cannot matter.
 */
import { performance } from 'node:perf_hooks';
import { FineModel } from '#physics/fine-model';
import { ReachCulledModel } from '#physics/reach-culled-model';
import { pusherRadius } from '#contract/end-effector/registry';
import type { Integrator, Scene } from '#contract/scene';

/** A fine-model setting to compare (scene.fine). */
type FineModelSettings = Scene['fine'];
import { layoutForScene, wrapAngle, type State } from '#contract/state';
import { loadSceneFile } from '../src-main/common/config-files';
import { realWorldSpread } from '../src-main/parareal/parareal';
import { Rng } from '../src-main/common/rng';
import type { Row } from './report';

export interface Push {
  x0: State;
  u: [number, number];
}

export const ACCURACY_SETTINGS: { integrator: Integrator; timestep: number }[] = [
  { integrator: 'RK4', timestep: 0.0005 },
  { integrator: 'RK4', timestep: 0.002 },
  { integrator: 'Euler', timestep: 0.0005 },
  { integrator: 'Euler', timestep: 0.001 },
  { integrator: 'Euler', timestep: 0.002 },
  { integrator: 'Euler', timestep: 0.005 },
  { integrator: 'implicitfast', timestep: 0.001 },
  { integrator: 'implicitfast', timestep: 0.002 },
  { integrator: 'implicitfast', timestep: 0.005 },
];

const PUSH_DURATION = 4;

function pushScene(): Scene {
  return { ...loadSceneFile('resources/scenes/isrr-obstacle.json'), obstacles: [] };
}

/** Pushes from contact at a random offset (within the slider radius) and angle, 0.03-0.1 m/s. */
export function randomPushes(scene: Scene, count: number, seed: number): Push[] {
  const rng = new Rng(seed);
  const slider = scene.sliders[0]!.shape;
  const rs = slider.kind === 'cylinder' ? slider.radius : Math.min(slider.sizeX, slider.sizeY) / 2;
  const reach = rs + pusherRadius(scene, 'the accuracy bench') + 5e-4;
  return Array.from({ length: count }, () => {
    const heading = (rng.uniform() - 0.5) * 0.6;
    const offset = (rng.uniform() * 2 - 1) * rs * 0.8;
    const speed = 0.03 + 0.07 * rng.uniform();
    const [cx, cy] = [Math.cos(heading), Math.sin(heading)];
    // Contact point behind the slider centre along the heading, shifted sideways by the offset.
    const along = Math.sqrt(Math.max(reach ** 2 - offset ** 2, 0));
    const L = layoutForScene(scene);
    const x0 = L.create();
    L.setPusher(x0, -along * cx - offset * cy, -along * cy + offset * cx);
    L.setSlider(x0, 0, { x: 0, y: 0, theta: (rng.uniform() - 0.5) * Math.PI });
    return { x0, u: [speed * cx, speed * cy] as [number, number] };
  });
}

async function finalStates(
  scene: Scene,
  pushes: Push[],
): Promise<{ states: State[]; msPerSimSecond: number }> {
  const fine = await FineModel.create(scene);
  try {
    fine.step(pushes[0]!.x0, pushes[0]!.u, 1); // warm-up
    const t0 = performance.now();
    const states = pushes.map((p) => {
      let x = p.x0;
      for (let t = 0; t < PUSH_DURATION; t++) x = fine.step(x, p.u, 1);
      return x;
    });
    return { states, msPerSimSecond: (performance.now() - t0) / (pushes.length * PUSH_DURATION) };
  } finally {
    fine.dispose();
  }
}

function poseDifference(scene: Scene, a: State[], b: State[]): { mm: number; deg: number } {
  const L = layoutForScene(scene);
  let mm = 0;
  let deg = 0;
  for (let i = 0; i < a.length; i++) {
    const p = L.sliderPose(a[i]!, 0);
    const q = L.sliderPose(b[i]!, 0);
    mm += Math.hypot(p.x - q.x, p.y - q.y) * 1000;
    deg += (Math.abs(wrapAngle(p.theta - q.theta)) * 180) / Math.PI;
  }
  return { mm: mm / a.length, deg: deg / a.length };
}

export async function accuracyRows(count: number, seed = 1): Promise<Row[]> {
  const scene = pushScene();
  const pushes = randomPushes(scene, count, seed);
  const reference = await finalStates(scene, pushes);
  const rows: Row[] = [
    {
      prediction: 'RK4 1 ms (reference)',
      'ms per simulated s': reference.msPerSimSecond,
      'cost vs reference': 1,
      'mean diff mm': 0,
      'mean diff deg': 0,
    },
  ];
  const nudged = pushes.map((p) => {
    const L = layoutForScene(scene);
    const x0 = Float64Array.from(p.x0);
    const q = L.sliderPose(x0, 0);
    L.setSlider(x0, 0, { ...q, x: q.x + 1e-6 });
    return { ...p, x0 };
  });
  const chaos = await finalStates(scene, nudged);
  const c = poseDifference(scene, chaos.states, reference.states);
  rows.push({
    prediction: 'RK4 1 ms, start moved 1 um',
    'ms per simulated s': chaos.msPerSimSecond,
    'cost vs reference': chaos.msPerSimSecond / reference.msPerSimSecond,
    'mean diff mm': c.mm,
    'mean diff deg': c.deg,
  });
  for (const s of ACCURACY_SETTINGS) {
    const r = await finalStates({ ...scene, fine: s }, pushes);
    const d = poseDifference(scene, r.states, reference.states);
    rows.push({
      prediction: `${s.integrator} ${s.timestep * 1000} ms`,
      'ms per simulated s': r.msPerSimSecond,
      'cost vs reference': r.msPerSimSecond / reference.msPerSimSecond,
      'mean diff mm': d.mm,
      'mean diff deg': d.deg,
    });
  }
  rows.push({
    prediction: 'real-world spread (ISRR 2019)',
    'ms per simulated s': '',
    'cost vs reference': '',
    'mean diff mm': realWorldSpread.translation * 1000,
    'mean diff deg': (realWorldSpread.rotation * 180) / Math.PI,
  });
  return rows;
}

/** Recorded situations on one drawn scene: states the planner met and the controls executed from each. */
export interface Replays {
  scene: Scene;
  replays: { x0: State; controls: number[][] }[];
}

/**
 * Accuracy on a task's own situations, several objects in contact included: from observed states
 * of recorded runs, the next executed controls (a planning horizon), predicted with each setting
 * and compared with RK4 at 1 ms without noise (the execution world's physics). The difference is
 * the largest over all objects, as the planner bench's `vs fine` columns take it.
 */
/** A prediction setting as the tables name it, e.g. "Euler 5 ms, sleeping bodies, solver 1e-6/5/10". */
function settingsLabel(s: FineModelSettings): string {
  const parts = [`${s.integrator} ${s.timestep * 1000} ms`];
  if (s.sleep) parts.push('sleeping bodies');
  if (s.onlyReachable) parts.push('only reachable objects');
  if (s.solver) {
    const { tolerance, iterations, lsIterations } = s.solver;
    parts.push(
      `solver tolerance ${tolerance ?? 'default'}, ${iterations ?? 'default'} iterations, ${lsIterations ?? 'default'} line search`,
    );
  }
  return parts.join(', ');
}

export async function replayAccuracyRows(
  groups: readonly Replays[],
  controlDuration: number,
  settings: readonly FineModelSettings[],
): Promise<Row[]> {
  const run = async (s: FineModelSettings) => {
    /** CPU time, s. */
    let cpu = 0;
    let seconds = 0;
    let steps = 0;
    let solverIterations = 0;
    const states: State[] = [];
    for (const g of groups) {
      const scene = { ...g.scene, fine: s };
      const fine = await FineModel.create(scene);
      // As a fine worker predicts (fine-worker.ts): with onlyReachable, the culled model.
      const predict = s.onlyReachable ? await ReachCulledModel.create(scene, fine) : fine;
      try {
        // Warm-up; the culled model also compiles the models of the object sets it meets (about
        // 20 ms each), once per scene as a worker does, so not in the time per simulated second.
        for (const r of predict === fine ? g.replays.slice(0, 1) : g.replays) {
          let x = r.x0;
          for (const u of r.controls) x = predict.step(x, u, controlDuration);
        }
        const w0 = { ...predict.work };
        const c0 = process.cpuUsage();
        for (const r of g.replays) {
          let x = r.x0;
          for (const u of r.controls) x = predict.step(x, u, controlDuration);
          seconds += r.controls.length * controlDuration;
          states.push(x);
        }
        // CPU time, not wall time: the comparison should not depend on what else the machine runs.
        const c = process.cpuUsage(c0);
        cpu += (c.user + c.system) / 1e6;
        steps += predict.work.steps - w0.steps;
        solverIterations += predict.work.solverIterations - w0.solverIterations;
      } finally {
        if (predict !== fine) predict.dispose();
        fine.dispose();
      }
    }
    return { states, msPerSimSecond: (cpu * 1000) / seconds, iterationsPerStep: solverIterations / steps };
  };
  const layouts = groups.flatMap((g) => g.replays.map(() => layoutForScene(g.scene)));
  const reference = await run({ integrator: 'RK4', timestep: 0.001 });
  const diff = (states: State[]): { mm: number; deg: number; maxMm: number } => {
    let mm = 0;
    let deg = 0;
    let maxMm = 0;
    states.forEach((x, i) => {
      const d = layouts[i]!.maxSliderPoseChange(x, reference.states[i]!);
      mm += d.translation * 1000;
      deg += (d.rotation * 180) / Math.PI;
      maxMm = Math.max(maxMm, d.translation * 1000);
    });
    return { mm: mm / states.length, deg: deg / states.length, maxMm };
  };
  const rows: Row[] = [];
  for (const s of settings) {
    const r = s.integrator === 'RK4' && s.timestep === 0.001 && !s.sleep ? reference : await run(s);
    const d = diff(r.states);
    rows.push({
      prediction: settingsLabel(s),
      'CPU ms per simulated s': r.msPerSimSecond,
      'solver iterations per step': r.iterationsPerStep,
      'cost vs reference': r.msPerSimSecond / reference.msPerSimSecond,
      'mean diff mm': d.mm,
      'mean diff deg': d.deg,
      'max diff mm': d.maxMm,
    });
  }
  rows.push({
    prediction: 'real-world spread (ISRR 2019)',
    'CPU ms per simulated s': '',
    'solver iterations per step': '',
    'cost vs reference': '',
    'mean diff mm': realWorldSpread.translation * 1000,
    'mean diff deg': (realWorldSpread.rotation * 180) / Math.PI,
    'max diff mm': '',
  });
  return rows;
}
