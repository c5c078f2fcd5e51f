/** The console API's physics commands (the Setup view's identification of the lab's physics). */
import { z } from 'zod';
import { labPhysicsFitSchema } from '../lab-physics-fit';

export const physicsCommands = [
  /** Fits the scene's physics to its identification runs and saves it for the lab's runs. */
  z.object({ type: z.literal('physics.fit') }).strict(),
] as const;

export const physicsResults = {
  'physics.fit': labPhysicsFitSchema,
} as const;
