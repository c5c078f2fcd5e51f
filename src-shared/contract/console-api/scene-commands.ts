/** The console API's scene commands: the library, importing, saving, validating and editing the scene. */
import { z } from 'zod';
import { sceneSchema } from '../scene';
import { validationProblemSchema } from './status';

/** A scene file name inside the scene library folder: no folders, no way out of it. */
const sceneFileNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}\.json$/, 'must be a file name ending in .json (no folders)');

/**
 * Where a library scene lives: shipped with the app (read only) or in the operator's own folder
 * (~/.parapush/scenes), where every save goes.
 */
export const sceneSourceSchema = z.enum(['shipped', 'user']);
export type SceneSource = z.infer<typeof sceneSourceSchema>;
export const sceneRefSchema = z.object({ file: sceneFileNameSchema, source: sceneSourceSchema }).strict();
export type SceneRef = z.infer<typeof sceneRefSchema>;

const sceneResult = z
  .object({
    scene: sceneSchema.nullable(),
    file: z.string().nullable(),
    problems: z.array(validationProblemSchema),
  })
  .strict();

export const sceneCommands = [
  z.object({ type: z.literal('scene.list') }).strict(),
  /** A library scene; a bare name is a shipped one. */
  z
    .object({
      type: z.literal('scene.load'),
      file: sceneFileNameSchema,
      source: sceneSourceSchema.default('shipped'),
    })
    .strict(),
  /** A scene chosen by the operator outside the library (file picker): its text and name. */
  z
    .object({
      type: z.literal('scene.import'),
      name: z.string().min(1).max(200),
      text: z.string().max(1_000_000),
    })
    .strict(),
  /**
   * Saves the current scene into the operator's folder (never among the shipped files). A file
   * there other than the one the scene came from is replaced only with `overwrite`; without it the
   * result says it exists and nothing is written.
   */
  z
    .object({
      type: z.literal('scene.save'),
      file: sceneFileNameSchema,
      overwrite: z.boolean().default(false),
    })
    .strict(),
  /** Validates a candidate scene without changing the current one. */
  z.object({ type: z.literal('scene.validate'), scene: z.unknown() }).strict(),
  /** Replaces the current scene when the candidate is valid. */
  z.object({ type: z.literal('scene.update'), scene: z.unknown() }).strict(),
] as const;

export const sceneResults = {
  /** The library, the operator's scenes first, and the folder saves go to. */
  'scene.list': z.object({ scenes: z.array(sceneRefSchema), saveDir: z.string() }).strict(),
  'scene.load': sceneResult,
  'scene.import': sceneResult,
  /** saved false: `path` exists and was left alone (ask, then save again with overwrite). */
  'scene.save': z.object({ file: z.string(), path: z.string(), saved: z.boolean() }).strict(),
  'scene.validate': z.object({ problems: z.array(validationProblemSchema) }).strict(),
  'scene.update': sceneResult,
} as const;
