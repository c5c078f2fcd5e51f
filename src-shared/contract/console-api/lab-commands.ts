/**
 * The console API's lab commands: the connections, the configured real lab (connect, disconnect,
 * a first setup), the robot's recovery and program restart, and the live Foxglove view.
 */
import { z } from 'zod';
import { labConnectionSchema, setupTemplateSchema } from '../lab-setup';
import { connectionSchema } from './status';

/**
 * The live Foxglove view (the WebSocket protocol, 127.0.0.1 only, no authentication): where a
 * viewer connects, or null while it is off.
 */
export const foxgloveStatusSchema = z.object({ url: z.string().nullable() }).strict();
export type FoxgloveStatus = z.infer<typeof foxgloveStatusSchema>;

export const labCommands = [
  z.object({ type: z.literal('connections.get') }).strict(),
  // The configured real lab, between runs: connect (pre-flight, calibration, jogging before any
  // run) and disconnect; a first setup written from a template when it has none.
  z.object({ type: z.literal('lab.get') }).strict(),
  z.object({ type: z.literal('lab.connect') }).strict(),
  z.object({ type: z.literal('lab.disconnect') }).strict(),
  /** Writes the configured lab's first setup from a template; refused when its setup file exists. */
  z.object({ type: z.literal('setup.create'), template: setupTemplateSchema }).strict(),
  /** Serves each run live to Foxglove on 127.0.0.1:port (0: a free port), or stops it (null). */
  z.object({ type: z.literal('foxglove.set'), port: z.number().int().min(0).max(65535).nullable() }).strict(),
  /**
   * Recovery of the connected robot from a protective stop: unlock, twist zeroed, control program
   * sent again; nothing is armed afterwards. Refused unless `confirm` is true, which the console
   * sets only after the operator has confirmed that the cause is inspected and the workspace is
   * clear; refused while a run is in progress or when the robot is not in a protective stop.
   */
  z.object({ type: z.literal('robot.recover'), confirm: z.boolean() }).strict(),
  /**
   * Sends the control program again when it is not playing on a robot that runs normally (a
   * previous stop ended it): the checklist's "Restart control program". Moves nothing and arms
   * nothing; refused while a run is in progress.
   */
  z.object({ type: z.literal('robot.restart-program') }).strict(),
] as const;

export const labResults = {
  'connections.get': z.object({ connections: z.array(connectionSchema) }).strict(),
  'lab.get': labConnectionSchema,
  'lab.connect': labConnectionSchema,
  'lab.disconnect': labConnectionSchema,
  'setup.create': labConnectionSchema,
  'foxglove.set': z.object({ foxglove: foxgloveStatusSchema }).strict(),
  'robot.recover': z
    .object({
      /** What was done, in words for the operator. */
      message: z.string(),
      /** The robot's safety mode and runtime state after the recovery, as it reported them. */
      safetyMode: z.string(),
      runtimeState: z.string(),
    })
    .strict(),
  'robot.restart-program': z
    .object({
      /** What was done, in words for the operator. */
      message: z.string(),
      restarted: z.boolean(),
    })
    .strict(),
} as const;
