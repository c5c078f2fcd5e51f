/**
 * Messages between the main process and fine-model workers (utility processes in the app, child
 * processes under Node). Both sides validate with these schemas: a malformed message is an error
 * reported with its path, never acted on.
 */
import { z } from 'zod';
import { sceneSchema } from '../src-main/contract/scene';

const stateSchema = z.custom<Float64Array>((v) => v instanceof Float64Array, 'expected a Float64Array state');
const controlSchema = z.tuple([z.number(), z.number()]);

export const fineJobSchema = z.object({
  id: z.number().int(),
  sceneKey: z.string(),
  x: stateSchema,
  controls: z.array(controlSchema).min(1),
  dt: z.number().positive(),
});
export type FineJob = z.infer<typeof fineJobSchema>;

export const toWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('scene'), sceneKey: z.string(), scene: sceneSchema }),
  z.object({ type: z.literal('jobs'), jobs: z.array(fineJobSchema).min(1) }),
]);
export type ToWorker = z.infer<typeof toWorkerSchema>;

export const fineResultSchema = z.object({
  id: z.number().int(),
  /** State at the end of each control of the job. */
  states: z.array(stateSchema),
  /** Wall time the worker spent on this job. */
  ms: z.number(),
});
export type FineResult = z.infer<typeof fineResultSchema>;

export const fromWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), pid: z.number().int() }),
  z.object({ type: z.literal('result'), result: fineResultSchema }),
  z.object({ type: z.literal('error'), id: z.number().int().nullable(), message: z.string() }),
]);
export type FromWorker = z.infer<typeof fromWorkerSchema>;
