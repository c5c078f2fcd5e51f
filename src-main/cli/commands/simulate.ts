/** `parapush simulate`: roll a control sequence out with the fine (MuJoCo) or the coarse model. */
import type { Command } from 'commander';
import { loadSceneFile } from '../../common/config-files';
import { initialState, layoutForScene, type State } from '#contract/state';
import { AnalyticalCoarseModel } from '#physics/coarse-model';
import { FineModel } from '#physics/fine-model';
import { parseControls, parseDuration } from '../controls';
import { UsageError } from '../errors';
import { formatStates } from '../state-output';

export function registerSimulateCommand(program: Command): void {
  program
    .command('simulate')
    .description('roll out robot velocities with the fine (MuJoCo) or coarse model; prints x0..xN')
    .requiredOption('--scene <file>', 'scene JSON file')
    .requiredOption(
      '--controls <json>',
      'array of [vx, vy] pusher velocities in m/s, or [vx, vy, yaw rate, opening speed] for a gripper (inline JSON or a file)',
    )
    .option('--model <model>', 'fine | coarse', 'fine')
    .option('--dt <seconds>', 'duration of each control', '1')
    .option('--json', 'print one JSON object {layout, states}')
    .action(async (opts: { scene: string; controls: string; model: string; dt: string; json?: boolean }) => {
      const scene = loadSceneFile(opts.scene);
      const controls = parseControls(opts.controls, scene);
      const dt = parseDuration(opts.dt);
      let states: State[];
      if (opts.model === 'fine') {
        const fine = await FineModel.create(scene);
        fine.stepsFor(dt);
        states = rollout(initialState(scene), controls, dt, (x, u) => fine.step(x, u, dt));
        fine.dispose();
      } else if (opts.model === 'coarse') {
        const coarse = new AnalyticalCoarseModel(scene);
        states = rollout(initialState(scene), controls, dt, (x, u) => coarse.step(x, u[0]!, u[1]!, dt));
      } else {
        throw new UsageError(`--model: expected fine or coarse, got "${opts.model}"`);
      }
      process.stdout.write(formatStates(layoutForScene(scene), states, opts.json === true));
    });
}

function rollout(
  x0: State,
  controls: number[][],
  _dt: number,
  step: (x: State, u: number[]) => State,
): State[] {
  const states = [x0];
  for (const u of controls) states.push(step(states[states.length - 1]!, u));
  return states;
}
