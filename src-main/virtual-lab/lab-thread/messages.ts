/**
 * The messages between the main thread and the virtual lab's thread (lab-thread.ts starts it,
 * worker.ts runs the lab). Both sides parse what they receive: a message that fails its schema is
 * an error, never acted on.
 */
import { z } from 'zod';
import { setupSchema } from '../../calibration/setup-file';
import { priorityResultSchema } from '../../common/thread-priority';
import { labConfigSchema } from '../virtual-lab';

const port = z.number().int().min(0).max(65535);

export const labThreadPortsSchema = z
  .object({
    rtde: port,
    dashboard: port,
    secondary: port,
    realtime: port,
    gripper: port,
    natnetCommand: port,
    natnetData: port,
  })
  .strict();
export type LabThreadPorts = z.infer<typeof labThreadPortsSchema>;

/** Requests that the thread answers with `done` or `refused` carrying the same id. */
const request = { id: z.number().int() };

export const toLabSchema = z.discriminatedUnion('type', [
  /**
   * Start the lab on this config (its scene a file), knowing the tools registered on the main
   * thread (contract/end-effector/registry.ts toolModules); answered by `started` or `failed`.
   */
  z.object({ type: z.literal('start'), config: labConfigSchema, toolModules: z.array(z.string()) }).strict(),
  /** Reset the table to the scene's start poses (VirtualLab.placeObjects). */
  z.object({ type: z.literal('place-objects'), ...request }).strict(),
  /** Fault injection: the virtual controller enters a protective stop as if the arm hit something. */
  z.object({ type: z.literal('protective-stop'), ...request }).strict(),
  /** Forward (or stop forwarding) every RTDE input package the virtual controller decodes. */
  z.object({ type: z.literal('watch-input'), on: z.boolean() }).strict(),
  /** Stop the lab's servers and end; answered by `stopped`. */
  z.object({ type: z.literal('stop') }).strict(),
]);
export type ToLab = z.input<typeof toLabSchema>;

const fieldValue = z.union([z.boolean(), z.number(), z.bigint(), z.array(z.number())]);

export const fromLabSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('started'),
      ports: labThreadPortsSchema,
      setup: setupSchema,
      /** Whether the thread runs at raised priority (common/thread-priority.ts), or why not. */
      priority: priorityResultSchema,
    })
    .strict(),
  /** The lab could not start (bad scene, port in use): the thread ends after this. */
  z.object({ type: z.literal('failed'), message: z.string() }).strict(),
  z.object({ type: z.literal('done'), ...request }).strict(),
  z.object({ type: z.literal('refused'), ...request, message: z.string() }).strict(),
  /**
   * An RTDE input package the controller decoded; `receivedAt` in s on the process's monotonic
   * clock (common/clock.ts), the same in every thread.
   */
  z
    .object({
      type: z.literal('input'),
      names: z.array(z.string()),
      values: z.array(fieldValue),
      receivedAt: z.number(),
    })
    .strict(),
  z.object({ type: z.literal('stopped') }).strict(),
]);
export type FromLab = z.infer<typeof fromLabSchema>;
/** What the thread sends (the setup as the lab holds it, before the schema's defaults). */
export type FromLabSent = z.input<typeof fromLabSchema>;
