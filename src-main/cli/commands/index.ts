/**
 * Every CLI command, in the order `parapush --help` lists them. A command's module (and all it
 * imports: MuJoCo, TensorFlow, the console) is loaded only when that command runs or shows its
 * own help; `parapush --help` needs only the names and summaries here, so it starts in the time
 * node and the TypeScript loader take, not the time the whole program takes to import.
 */
import type { Command } from 'commander';

interface CommandEntry {
  name: string;
  /** The command's description, as its module gives it (test/cli/lazy-commands.test.ts holds them equal). */
  summary: string;
  load: () => Promise<(program: Command) => void>;
}

export const commandEntries: readonly CommandEntry[] = [
  {
    name: 'scene',
    summary: 'validate scene files and print their JSON Schema',
    load: async () => (await import('./scene')).registerSceneCommand,
  },
  {
    name: 'simulate',
    summary: 'roll out robot velocities with the fine (MuJoCo) or coarse model; prints x0..xN',
    load: async () => (await import('./simulate')).registerSimulateCommand,
  },
  {
    name: 'predict',
    summary: 'predict the states of a control sequence with coarse, fine or Parareal (parallel fine slices)',
    load: async () => (await import('./predict')).registerPredictCommand,
  },
  {
    name: 'web',
    summary: 'serve the console UI to a browser on 127.0.0.1, behind a per-launch token',
    load: async () => (await import('./web')).registerWebCommand,
  },
  {
    name: 'experiment',
    summary:
      'run a planning experiment: MPC over sampled scenes for each prediction model (resumable, shardable)',
    load: async () => (await import('./experiment')).registerExperimentCommand,
  },
  {
    name: 'mocap',
    summary: 'OptiTrack motion capture: replay captures, virtual server, client',
    load: async () => (await import('./mocap')).registerMocapCommand,
  },
  {
    name: 'log',
    summary: 'inspect, export and recover session logs (MCAP)',
    load: async () => (await import('./log')).registerLogCommand,
  },
  {
    name: 'physics',
    summary: 'the fine model against the lab: prediction error from session logs, and physics fitted to them',
    load: async () => (await import('./physics')).registerPhysicsCommand,
  },
  {
    name: 'learn',
    summary: 'the learned coarse model (CVS 2020): generate fine-model data, train, evaluate',
    load: async () => (await import('./learn')).registerLearnCommand,
  },
  {
    name: 'lab',
    summary:
      'start the virtual lab on 127.0.0.1: virtual UR5 controller, Robotiq gripper and NatNet server on one MuJoCo world',
    load: async () => (await import('./lab')).registerLabCommand,
  },
  {
    name: 'run',
    summary: 'run a supervised pushing task on the robot: mocap -> state -> planner -> supervisor -> robot',
    load: async () => (await import('./run')).registerRunCommand,
  },
  {
    name: 'robot',
    summary: 'operations on the UR controller',
    load: async () => (await import('./robot')).registerRobotCommand,
  },
];

/**
 * The command `args` (the arguments after `parapush`) names, also as `help NAME`; undefined for
 * the program's own help or version, or a word that names no command (commander then says so).
 */
export function commandNamed(args: readonly string[]): CommandEntry | undefined {
  const words = args.filter((a) => !a.startsWith('-'));
  const name = words[0] === 'help' ? words[1] : words[0];
  return commandEntries.find((c) => c.name === name);
}

/**
 * Adds every command to the program: the one `args` names in full (loaded now), the others by
 * name and summary only, which is all the program's help and its "did you mean" need.
 */
export async function registerCommands(program: Command, args: readonly string[]): Promise<void> {
  const wanted = commandNamed(args);
  for (const entry of commandEntries) {
    if (entry === wanted) (await entry.load())(program);
    else program.command(entry.name).description(entry.summary);
  }
}
