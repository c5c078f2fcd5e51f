/**
 * Messages between the main process and fine-model workers (utility processes in the app, child
 * processes under Node). Both sides validate with these schemas: a malformed message is an error
 * reported with its path, never acted on.
 */
import { z } from 'zod';
import { sceneSchema } from './scene';

const stateSchema = z.custom<Float64Array>((v) => v instanceof Float64Array, 'expected a Float64Array state');
/**
 * A control: one velocity per robot DOF (2 for the pusher, 4 for the gripper: contract/state.ts);
 * the fine model checks the length against its scene.
 */
const controlSchema = z.array(z.number()).min(2).max(4);

/**
 * A stochastic execution instead of F(x, u, dt) (TAMPC's samples, WAFR 2018 Alg. 1 line 7), from a
 * reset to x: before every MuJoCo step of the controls, then of `rest` seconds with the robot
 * commanded to stand still, the next `dofs` values of `controlNoise` (then `restNoise`) are added
 * to the robot's and every slider's velocities, in the execution world's order (the robot's DOFs,
 * then each slider's vx, vy, omega: physics/fine-model.ts noiseDofs). The main process draws them from its seeded stream, so a sample
 * is step for step what the execution world does (workers hold no random streams). An empty array
 * is a phase without noise. The result has one more state, after the rest.
 */
export const jobNoiseSchema = z.object({
  controlNoise: stateSchema,
  rest: z.number().min(0),
  restNoise: stateSchema,
});
export type JobNoise = z.infer<typeof jobNoiseSchema>;

export const fineJobSchema = z.object({
  id: z.number().int(),
  sceneKey: z.string(),
  x: stateSchema,
  controls: z.array(controlSchema).min(1),
  dt: z.number().positive(),
  noise: jobNoiseSchema.optional(),
});
export type FineJob = z.infer<typeof fineJobSchema>;

export const toWorkerSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('scene'),
    sceneKey: z.string(),
    scene: sceneSchema,
    /**
     * The module that registers the scene's tool when it is not built in
     * (contract/end-effector/registry.ts toolModuleOf): the worker imports it before compiling.
     */
    toolModule: z.string().optional(),
  }),
  z.object({ type: z.literal('jobs'), jobs: z.array(fineJobSchema).min(1) }),
  /** Frees a scene's compiled model (a long-lived pool keeps only the scenes used last). */
  z.object({ type: z.literal('forget'), sceneKey: z.string() }),
]);
export type ToWorker = z.infer<typeof toWorkerSchema>;

export const fineResultSchema = z.object({
  id: z.number().int(),
  /** State at the end of each control of the job (and, for a noisy job with a rest, after the rest). */
  states: z.array(stateSchema),
  /** Wall time the worker spent on this job, s. */
  seconds: z.number(),
  /**
   * CPU time the worker's process spent on this job (user + system), s: its work, which other
   * processes on the same cores do not stretch as they stretch `seconds`.
   */
  cpu: z.number().min(0),
  /** MuJoCo steps the job took. */
  steps: z.number().int().min(0),
  /**
   * Constraint-solver iterations summed over the job's MuJoCo steps: with the steps, its work,
   * counted (CPU time per job follows it, about 9 ms per 1000 on this project's 2-core machine).
   */
  solverIterations: z.number().int().min(0),
});
export type FineResult = z.infer<typeof fineResultSchema>;

export const fromWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), pid: z.number().int() }),
  /** The scene's MuJoCo model is compiled: its jobs start at once. */
  z.object({ type: z.literal('scene-ready'), sceneKey: z.string() }),
  z.object({ type: z.literal('result'), result: fineResultSchema }),
  z.object({ type: z.literal('error'), id: z.number().int().nullable(), message: z.string() }),
]);
export type FromWorker = z.infer<typeof fromWorkerSchema>;
