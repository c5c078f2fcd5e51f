/**
 * The tools a scene may name, and the one reading of a scene's tool. The pusher and the parallel
 * gripper are built in and read from the scene's `pusher` and `gripper` entries; any other kind
 * is added by one file that calls registerEndEffector and is named by a scene's `tool: { kind,
 * ... }` (contract/scene.ts).
 */
import type { Gripper, Pusher } from '../scene';
import type { ControlLimits, EndEffector, EndEffectorKind, SceneLimits } from './end-effector';
import { parallelGripperKind } from './parallel-gripper';
import { pusherKind } from './pusher';

const kinds = new Map<string, EndEffectorKind>([
  [pusherKind.kind, pusherKind as EndEffectorKind],
  [parallelGripperKind.kind, parallelGripperKind as EndEffectorKind],
]);
/** The module of each registered kind, which other processes (the fine workers) import to know it. */
const modules = new Map<string, string>();

/**
 * Adds a kind of tool; a scene names it by `tool.kind`. `module` is the URL of the module that
 * calls this (its import.meta.url): the fine workers import it to know the kind too.
 */
export function registerEndEffector<P>(kind: EndEffectorKind<P>, module: string): void {
  const known = kinds.get(kind.kind);
  if (known === kind) return;
  if (known) throw new Error(`a tool of kind "${kind.kind}" is registered already`);
  kinds.set(kind.kind, kind as EndEffectorKind);
  modules.set(kind.kind, module);
}

/** The module that registers the scene's tool; undefined for a built-in one. */
export function toolModuleOf(scene: ToolEntries): string | undefined {
  return scene.tool ? modules.get(scene.tool.kind) : undefined;
}

/**
 * The modules of every registered kind: another thread or process (the safety thread, the virtual
 * lab's thread) imports them to know the same tools as this one.
 */
export function toolModules(): string[] {
  return [...modules.values()];
}

/** Every kind of tool, with its description (for lists of tools). */
export function endEffectorKinds(): readonly EndEffectorKind[] {
  return [...kinds.values()];
}

/** What a scene says about its tool (contract/scene.ts: exactly one of them). */
export interface ToolEntries {
  pusher?: Pusher | undefined;
  gripper?: Gripper | undefined;
  tool?: ({ kind: string } & Record<string, unknown>) | undefined;
}

// Tools are made once per scene entry: a scene is copied with other settings ({ ...scene, fine })
// far more often than its tool changes, and the entry's object survives the copy.
const made = new WeakMap<object, EndEffector>();

/** The scene's tool. Throws for a scene without one or with a tool of an unregistered kind. */
export function endEffectorOf(scene: ToolEntries): EndEffector {
  const entry = scene.tool ?? scene.gripper ?? scene.pusher;
  if (!entry) throw new Error('a scene needs a robot: a pusher, a gripper or a tool');
  let tool = made.get(entry);
  if (!tool) {
    tool = makeTool(scene);
    made.set(entry, tool);
  }
  return tool;
}

/**
 * Moves the scene's tool's start to `at` in place (the console's scene edits: dragging the robot,
 * snapping the scene to the table as measured).
 */
export function moveRobotStart(scene: ToolEntries, at: { x: number; y: number }): void {
  if (scene.tool) {
    const { kind: name, ...params } = scene.tool;
    const kind = kinds.get(name);
    if (!kind) throw new Error(`tool.kind "${name}" is not a known tool`);
    scene.tool = { kind: name, ...(kind.moveStart(kind.parse(params), at) as object) };
  } else if (scene.gripper) scene.gripper = parallelGripperKind.moveStart(scene.gripper, at);
  else if (scene.pusher) scene.pusher = pusherKind.moveStart(scene.pusher, at);
}

function makeTool(scene: ToolEntries): EndEffector {
  if (scene.tool) {
    const { kind: name, ...params } = scene.tool;
    const kind = kinds.get(name);
    if (!kind)
      throw new Error(`tool.kind "${name}" is not a known tool (known: ${[...kinds.keys()].join(', ')})`);
    return kind.create(kind.parse(params));
  }
  // The scene's own entries are parsed already (contract/scene.ts).
  if (scene.gripper) return parallelGripperKind.create(scene.gripper);
  return pusherKind.create(scene.pusher!);
}

/** The robot's speed limits in a scene: its tool's reading of the scene's limits. */
export function controlLimits(scene: ToolEntries & { limits: SceneLimits }): ControlLimits {
  return endEffectorOf(scene).controlLimits(scene.limits);
}

/** Where the robot starts in the table plane: its tool's reference point. */
export function robotStart(scene: ToolEntries): { x: number; y: number } {
  const [x, y] = endEffectorOf(scene).start;
  return { x: x!, y: y! };
}

/**
 * The radius of the scene's cylindrical pusher, for the parts that model only that pusher (the
 * coarse models, the projection, sampling start states); any other tool is refused with who
 * refused it.
 */
export function pusherRadius(scene: ToolEntries & { name: string }, user: string): number {
  const tool = endEffectorOf(scene);
  if (tool.discRadius === undefined)
    throw new Error(
      `scene "${scene.name}": its robot is the ${tool.title}; ${user} knows only the cylindrical pusher`,
    );
  return tool.discRadius;
}
