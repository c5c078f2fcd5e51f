/**
 * Foxglove's well-known message schemas that a session log carries beside its own channels, so
 * Foxglove (and Lichtblick) fill their Log, 3D and Transform panels: `foxglove.Log`,
 * `foxglove.FrameTransforms` and `foxglove.SceneUpdate`. Foxglove recognises them by schema name;
 * the fields follow its schema definitions (https://docs.foxglove.dev/docs/visualization/message-schemas,
 * snake_case, times as { sec, nsec }), restated here as zod so the log is written and read back
 * against them like every other channel. Messages of these channels carry no `mono`/`wall`
 * stamps: they are exactly the Foxglove message. Optional Foxglove fields we never fill (message
 * ids, lineage) are left out. Every field has a plain JSON Schema type (enumerations are numbers
 * with an `enum`), as Foxglove's JSON Schema reader wants. Lengths in m, orientations as unit
 * quaternions (x, y, z, w).
 */
import { z } from 'zod';

const number = z.number();

const time = z
  .object({
    sec: z.number().int().min(0),
    nsec: z.number().int().min(0).max(999_999_999),
  })
  .describe('time since the epoch');
const duration = z.object({
  sec: z.number().int(),
  nsec: z.number().int().min(0).max(999_999_999),
});
const vector3 = z.object({ x: number, y: number, z: number });
const point3 = z.object({ x: number, y: number, z: number });
const quaternion = z.object({ x: number, y: number, z: number, w: number });
const pose = z.object({ position: vector3, orientation: quaternion });
const color = z.object({ r: number, g: number, b: number, a: number }).describe('each 0 to 1');
const keyValuePair = z.object({ key: z.string(), value: z.string() });
const indices = z.array(z.number().int().min(0));

/** foxglove.Log: one line of the event log. */
export const foxgloveLogSchema = z.object({
  timestamp: time,
  /** UNKNOWN 0, DEBUG 1, INFO 2, WARNING 3, ERROR 4, FATAL 5. */
  level: z.literal([0, 1, 2, 3, 4, 5]),
  message: z.string(),
  /** Process or node name: the source of the line (supervisor, operator, run, ...). */
  name: z.string(),
  file: z.string(),
  line: z.number().int().min(0),
});
export type FoxgloveLog = z.infer<typeof foxgloveLogSchema>;

export const LogLevel = { INFO: 2, WARNING: 3, ERROR: 4 } as const;

const frameTransformSchema = z.object({
  timestamp: time,
  parent_frame_id: z.string(),
  child_frame_id: z.string(),
  /** The child frame's origin in the parent frame. */
  translation: vector3,
  /** The child frame's orientation in the parent frame. */
  rotation: quaternion,
});
export type FrameTransform = z.infer<typeof frameTransformSchema>;

/** foxglove.FrameTransforms: the frames of the lab (table, motion capture, robot base, tool, bodies). */
export const frameTransformsSchema = z.object({ transforms: z.array(frameTransformSchema) });
export type FrameTransforms = z.infer<typeof frameTransformsSchema>;

const arrowPrimitive = z.object({
  pose,
  shaft_length: number,
  shaft_diameter: number,
  head_length: number,
  head_diameter: number,
  color,
});
const cubePrimitive = z.object({ pose, size: vector3, color });
const spherePrimitive = z.object({ pose, size: vector3, color });
const cylinderPrimitive = z.object({
  pose,
  /** Bounding box; the flat faces are perpendicular to z. */
  size: vector3,
  bottom_scale: number,
  top_scale: number,
  color,
});
const linePrimitive = z.object({
  /** LINE_STRIP 0, LINE_LOOP 1, LINE_LIST 2. */
  type: z.literal([0, 1, 2]),
  pose,
  thickness: number,
  scale_invariant: z.boolean(),
  points: z.array(point3),
  color,
  colors: z.array(color),
  indices,
});
const triangleListPrimitive = z.object({
  pose,
  points: z.array(point3),
  color,
  colors: z.array(color),
  indices,
});
const textPrimitive = z.object({
  pose,
  billboard: z.boolean(),
  font_size: number,
  scale_invariant: z.boolean(),
  color,
  text: z.string(),
});
const modelPrimitive = z.object({
  pose,
  scale: vector3,
  color,
  override_color: z.boolean(),
  url: z.string(),
  media_type: z.string(),
  /** base64 */
  data: z.string(),
});

const sceneEntitySchema = z.object({
  timestamp: time,
  frame_id: z.string(),
  /** Replaces any earlier entity with the same id on the same topic. */
  id: z.string(),
  /** Zero: shown until replaced or deleted. */
  lifetime: duration,
  frame_locked: z.boolean(),
  metadata: z.array(keyValuePair),
  arrows: z.array(arrowPrimitive),
  cubes: z.array(cubePrimitive),
  spheres: z.array(spherePrimitive),
  cylinders: z.array(cylinderPrimitive),
  lines: z.array(linePrimitive),
  triangles: z.array(triangleListPrimitive),
  texts: z.array(textPrimitive),
  models: z.array(modelPrimitive),
});
export type SceneEntity = z.infer<typeof sceneEntitySchema>;
export type LinePrimitive = z.infer<typeof linePrimitive>;
export type CubePrimitive = z.infer<typeof cubePrimitive>;
export type CylinderPrimitive = z.infer<typeof cylinderPrimitive>;
export type TextPrimitive = z.infer<typeof textPrimitive>;
export type Color = z.infer<typeof color>;
export type Pose = z.infer<typeof pose>;
export type Time = z.infer<typeof time>;

const sceneEntityDeletionSchema = z.object({
  timestamp: time,
  /** MATCHING_ID 0 (the entity `id`), ALL 1 (every entity on the topic older than `timestamp`). */
  type: z.literal([0, 1]),
  id: z.string(),
});

/** foxglove.SceneUpdate: entities of the 3D panel to add, replace or delete. */
export const sceneUpdateSchema = z.object({
  deletions: z.array(sceneEntityDeletionSchema),
  entities: z.array(sceneEntitySchema),
});
export type SceneUpdate = z.infer<typeof sceneUpdateSchema>;

/** The well-known schema name of each Foxglove schema, as stored in the MCAP schema record. */
export const FOXGLOVE_SCHEMA_NAMES = new Map<z.ZodType, string>([
  [foxgloveLogSchema, 'foxglove.Log'],
  [frameTransformsSchema, 'foxglove.FrameTransforms'],
  [sceneUpdateSchema, 'foxglove.SceneUpdate'],
]);
