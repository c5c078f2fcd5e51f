/**
 * The console API: every command the renderer sends to the core and every event the core sends
 * to the renderer. Both transports (Electron IPC and the web-mode WebSocket) carry exactly these
 * messages, and both ends validate them with these schemas. SI units throughout. Each namespace's
 * commands and results are in its own file under console-api/ (scene, settings, run, lab,
 * sessions and playback, calibration); this file joins them and holds the events, the snapshot,
 * the responses and the framing.
 */
import { z } from 'zod';
import { sceneSchema } from './scene';
import { labViewSchema } from './lab-view';
import { plannerPresetNameSchema, plannerSettingsSchema } from './planner-settings';
import { plannerStepSchema } from './planner-events';
import { calibrationCommands, calibrationResults } from './console-api/calibration-commands';
import { foxgloveStatusSchema, labCommands, labResults } from './console-api/lab-commands';
import { finite, nonNegative } from './console-api/numbers';
import { physicsCommands, physicsResults } from './console-api/physics-commands';
import { runCommands, runResults } from './console-api/run-commands';
import { sceneCommands, sceneResults, sceneSourceSchema } from './console-api/scene-commands';
import { playbackStatusSchema, sessionCommands, sessionResults } from './console-api/sessions-commands';
import { plannerKindEntrySchema, settingsCommands, settingsResults } from './console-api/settings-commands';
import { connectionSchema, preflightReportSchema, runStatusSchema } from './console-api/status';

export * from './console-api/calibration-commands';
export * from './console-api/lab-commands';
export * from './console-api/physics-commands';
export * from './console-api/run-commands';
export * from './console-api/scene-commands';
export * from './console-api/sessions-commands';
export * from './console-api/settings-commands';
export * from './console-api/status';

/** Every IPC channel the shell uses; nothing else is handled or exposed. */
export const ConsoleChannel = {
  /** renderer -> main, invoke/handle: one command, one response. */
  command: 'parapush:command',
  /** main -> renderer: low-rate events (scene, settings, run state, log, ...). */
  event: 'parapush:event',
  /** main -> renderer: carries the MessagePort of the high-rate stream (live state, planner steps). */
  stream: 'parapush:stream',
} as const;
export const consoleChannelSchema = z.enum([
  ConsoleChannel.command,
  ConsoleChannel.event,
  ConsoleChannel.stream,
]);
export type ConsoleChannelName = z.infer<typeof consoleChannelSchema>;

const stateVector = z.array(finite);

// ---------------------------------------------------------------- commands (renderer -> core)

export const commandSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('snapshot.get') }).strict(),
  ...sceneCommands,
  ...settingsCommands,
  ...runCommands,
  ...labCommands,
  ...sessionCommands,
  ...calibrationCommands,
  ...physicsCommands,
]);
export type ConsoleCommand = z.infer<typeof commandSchema>;
export type CommandType = ConsoleCommand['type'];
export type CommandOf<T extends CommandType> = Extract<ConsoleCommand, { type: T }>;

// ---------------------------------------------------------------- events (core -> renderer)

export const eventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('connections'), connections: z.array(connectionSchema) }).strict(),
  z
    .object({
      type: z.literal('scene'),
      scene: sceneSchema.nullable(),
      file: z.string().nullable(),
      /** Where `file` is (null or absent: the scene came from no library file). */
      source: sceneSourceSchema.nullable().optional(),
      dirty: z.boolean(),
    })
    .strict(),
  z.object({ type: z.literal('settings'), settings: plannerSettingsSchema }).strict(),
  z.object({ type: z.literal('run'), status: runStatusSchema }).strict(),
  /** The pre-flight checklist as the lab stands now (null: no lab connected). */
  z.object({ type: z.literal('preflight'), report: preflightReportSchema.nullable() }).strict(),
  /** The lab in use: which it is, its scene and its setup's frames (null: no lab configured). */
  z.object({ type: z.literal('lab'), lab: labViewSchema.nullable() }).strict(),
  /** High rate: the measured state (motion capture + robot), for the live view. */
  z
    .object({
      type: z.literal('state'),
      time: nonNegative,
      sliderIds: z.array(z.string()).min(1),
      state: stateVector,
    })
    .strict(),
  /**
   * High rate, between runs: the table as the lab measures it (no run's time, no path), so the
   * table view follows the arm and the objects while the operator jogs or moves them.
   */
  z
    .object({
      type: z.literal('lab-state'),
      sliderIds: z.array(z.string()).min(1),
      state: stateVector,
    })
    .strict(),
  /** High rate: one MPC step's plan, predictions, costs and timings. */
  z.object({ type: z.literal('planner-step'), step: plannerStepSchema }).strict(),
  /** Playback of a recorded session: where the timeline is; null when no session is open. */
  z.object({ type: z.literal('playback'), status: playbackStatusSchema.nullable() }).strict(),
  z
    .object({
      type: z.literal('supervisor'),
      time: nonNegative,
      decision: z.enum(['allow', 'limit', 'stop']),
      reason: z.string(),
    })
    .strict(),
  z
    .object({
      type: z.literal('log'),
      /** Wall clock, s since the epoch. */
      at: nonNegative,
      level: z.enum(['info', 'warn', 'error']),
      source: z.string(),
      message: z.string(),
    })
    .strict(),
]);
export type ConsoleEvent = z.infer<typeof eventSchema>;
export type EventType = ConsoleEvent['type'];
export type EventOf<T extends EventType> = Extract<ConsoleEvent, { type: T }>;

/** Events that go over the high-rate stream (a MessagePort in Electron). */
// Playback events travel with the stream they replay, so a seek's clear never overtakes them.
export const streamEventTypes: ReadonlySet<EventType> = new Set([
  'state',
  'lab-state',
  'planner-step',
  'playback',
]);

// ---------------------------------------------------------------- command results

export const snapshotSchema = z
  .object({
    scene: sceneSchema.nullable(),
    sceneFile: z.string().nullable(),
    sceneSource: sceneSourceSchema.nullable(),
    settings: plannerSettingsSchema,
    presets: z.array(z.object({ name: plannerPresetNameSchema, label: z.string() }).strict()),
    /** The planners the settings may choose, from the planner registry. */
    planners: z.array(plannerKindEntrySchema),
    run: runStatusSchema,
    /** Why a real run cannot start (no real lab configured), with how to configure one; null: it can. */
    realRun: z.string().nullable(),
    connections: z.array(connectionSchema),
    preflight: preflightReportSchema.nullable(),
    lab: labViewSchema.nullable(),
    foxglove: foxgloveStatusSchema,
  })
  .strict();
export type ConsoleSnapshot = z.infer<typeof snapshotSchema>;

export const commandResultSchemas = {
  'snapshot.get': snapshotSchema,
  ...sceneResults,
  ...settingsResults,
  ...runResults,
  ...labResults,
  ...sessionResults,
  ...calibrationResults,
  ...physicsResults,
} as const satisfies Record<CommandType, z.ZodType>;
export type CommandResult<T extends CommandType> = z.infer<(typeof commandResultSchemas)[T]>;

/** The answer to one command: its result, or an error meant for the operator. */
export const commandResponseSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), result: z.unknown() }).strict(),
  z.object({ ok: z.literal(false), error: z.string() }).strict(),
]);
export type CommandResponse = z.infer<typeof commandResponseSchema>;

/** Checks a response against the result schema of the command that asked for it. */
export function parseCommandResult<T extends CommandType>(type: T, response: unknown): CommandResult<T> {
  const r = commandResponseSchema.parse(response);
  if (!r.ok) throw new ConsoleCommandError(r.error);
  return commandResultSchemas[type].parse(r.result) as CommandResult<T>;
}

/** One line per zod issue, with the field path a person reads (run.mode: ...). */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
      return `${path.replace(/^\./, '') || '(root)'}: ${issue.message}`;
    })
    .join('; ');
}

/** A command the core refused, with the reason for the operator. */
export class ConsoleCommandError extends Error {
  override name = 'ConsoleCommandError';
}

// ---------------------------------------------------------------- web-mode framing

/** WebSocket frames: the same commands and events, with a request id to pair responses. */
export const clientFrameSchema = z
  .object({ kind: z.literal('command'), id: z.number().int().min(0), command: commandSchema })
  .strict();
export type ClientFrame = z.infer<typeof clientFrameSchema>;

export const serverFrameSchema = z.discriminatedUnion('kind', [
  z
    .object({ kind: z.literal('response'), id: z.number().int().min(0), response: commandResponseSchema })
    .strict(),
  z.object({ kind: z.literal('event'), event: eventSchema }).strict(),
  /** The server could not read a frame: sent back instead of acting on it. */
  z.object({ kind: z.literal('rejected'), reason: z.string() }).strict(),
]);
export type ServerFrame = z.infer<typeof serverFrameSchema>;

// ---------------------------------------------------------------- the preload bridge

/** What the Electron preload exposes as window.parapush: two functions, never ipcRenderer. */
export interface ConsoleBridge {
  /** Sends one command; resolves with the core's response (already validated by the preload). */
  invoke(command: ConsoleCommand): Promise<CommandResponse>;
  /** Receives every event, low-rate (IPC) and high-rate (MessagePort) alike; returns unsubscribe. */
  onEvent(listener: (event: ConsoleEvent) => void): () => void;
}
