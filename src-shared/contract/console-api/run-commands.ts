/** The console API's run commands: start, arm, pause, resume, abort. */
import { z } from 'zod';
import { runModeSchema } from '../run-lifecycle';
import { runStatusSchema } from './status';

export const abortSourceSchema = z.enum(['button', 'escape-key', 'space-key', 'remote']);

export const runCommands = [
  z
    .object({
      type: z.literal('run.start'),
      mode: runModeSchema,
      /** An identification run: probing pushes instead of the task (docs/virtual-lab.md). */
      probe: z.literal(true).optional(),
    })
    .strict(),
  /** The operator's explicit arm step of a real run, once its pre-flight checklist is green. */
  z.object({ type: z.literal('run.arm') }).strict(),
  z.object({ type: z.literal('run.pause') }).strict(),
  z.object({ type: z.literal('run.resume') }).strict(),
  z.object({ type: z.literal('run.abort'), source: abortSourceSchema }).strict(),
] as const;

export const runResults = {
  'run.start': z.object({ status: runStatusSchema }).strict(),
  'run.arm': z.object({ status: runStatusSchema }).strict(),
  'run.pause': z.object({ status: runStatusSchema }).strict(),
  'run.resume': z.object({ status: runStatusSchema }).strict(),
  'run.abort': z.object({ status: runStatusSchema }).strict(),
} as const;
