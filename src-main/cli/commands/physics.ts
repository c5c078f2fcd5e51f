/** `parapush physics`: the lab's physics: identification runs (probe). */
import type { Command } from 'commander';
import { registerProbeCommand } from './physics-probe';

export function registerPhysicsCommand(program: Command): void {
  const physics = program
    .command('physics')
    .description(
      "the lab's physics: probe it with an identification run, fit the scene's parameters to logs",
    );
  registerProbeCommand(physics);
}
