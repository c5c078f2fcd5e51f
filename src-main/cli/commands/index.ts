/** Every CLI command, in the order `parapush --help` lists them. */
import type { Command } from 'commander';
import { registerSceneCommand } from './scene';
import { registerSimulateCommand } from './simulate';
import { registerPredictCommand } from './predict';
import { registerWebCommand } from './web';
import { registerExperimentCommand } from './experiment';
import { registerMocapCommand } from './mocap';
import { registerLogCommand } from './log';
import { registerLearnCommand } from './learn';
import { registerLabCommand } from './lab';
import { registerRunCommand } from './run';
import { registerRobotCommand } from './robot';

export function registerCommands(program: Command): void {
  registerSceneCommand(program);
  registerSimulateCommand(program);
  registerPredictCommand(program);
  registerWebCommand(program);
  registerExperimentCommand(program);
  registerMocapCommand(program);
  registerLogCommand(program);
  registerLearnCommand(program);
  registerLabCommand(program);
  registerRunCommand(program);
  registerRobotCommand(program);
}
