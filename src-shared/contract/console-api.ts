/**
 * The console API: every command the renderer sends to the core and every event the core sends
 * to the renderer. Both transports (Electron IPC and the web-mode WebSocket) carry exactly these
 * messages, and both ends validate them with these schemas. SI units throughout.
 */
import { runPredictionErrorSchema } from './prediction-error';
import { labPhysicsFitSchema } from './lab-physics-fit';
import { z } from 'zod';
import { sceneSchema } from './scene';
import { labKindSchema, labViewSchema } from './lab-view';
import { labConnectionSchema, setupTemplateSchema } from './lab-setup';
import { modelRequestKindSchema, plannerPresetNameSchema, plannerSettingsSchema } from './planner-settings';
import { runModeSchema, runPhaseSchema } from './run-lifecycle';

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

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const nonNegative = finite.refine((v) => v >= 0, 'must be 0 or more');
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

/** A session log file name inside the sessions folder: no folders, no way out of it. */
const sessionFileNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}\.mcap$/, 'must be a file name ending in .mcap (no folders)');

export const abortSourceSchema = z.enum(['button', 'escape-key', 'space-key', 'remote']);

// ---------------------------------------------------------------- commands (renderer -> core)

/**
 * The live Foxglove view (the WebSocket protocol, 127.0.0.1 only, no authentication): where a
 * viewer connects, or null while it is off.
 */
export const foxgloveStatusSchema = z.object({ url: z.string().nullable() }).strict();
export type FoxgloveStatus = z.infer<typeof foxgloveStatusSchema>;

/** The two calibration stages: motion capture -> table, and table -> robot base. */
export const calibrationStageIdSchema = z.enum(['mocap', 'robot']);
export type CalibrationStageId = z.infer<typeof calibrationStageIdSchema>;
const point3 = z.tuple([finite, finite, finite]).describe('m');
/** One jog's step along a robot base axis (m): at most 50 mm (robot/jog.ts MAX_JOG). */
const jogStep = finite.refine((v) => Math.abs(v) <= 0.05, 'must be within ±0.05 m');

/**
 * What a jog's path would do (contract/jog-path.ts): clear; `confirm`: it crosses an object or
 * obstacle (or the console cannot see all of them), so it moves only on the operator's
 * confirmation; `refused`: it ends too near the table edge. `message` says which and why.
 */
export const jogCheckSchema = z
  .object({ verdict: z.enum(['clear', 'confirm', 'refused']), message: z.string().nullable() })
  .strict();
export type JogCheck = z.infer<typeof jogCheckSchema>;

export const commandSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('snapshot.get') }).strict(),
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
  z.object({ type: z.literal('settings.get') }).strict(),
  z.object({ type: z.literal('settings.set'), settings: plannerSettingsSchema }).strict(),
  z.object({ type: z.literal('settings.preset'), preset: plannerPresetNameSchema }).strict(),
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
  z.object({ type: z.literal('connections.get') }).strict(),
  // The configured real lab, between runs: connect (pre-flight, calibration, jogging before any
  // run) and disconnect; a first setup written from a template when it has none.
  /** Fits the scene's physics to its identification runs and saves it for the lab's runs (Setup view). */
  z.object({ type: z.literal('physics.fit') }).strict(),
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
  // Sessions: recorded run logs, their playback and what-if re-planning. Playback never moves the robot.
  z.object({ type: z.literal('sessions.list') }).strict(),
  z.object({ type: z.literal('sessions.open'), file: sessionFileNameSchema }).strict(),
  /**
   * Recovery of one log that needs it (cut short or damaged): rewritten as a complete log, the
   * original kept as FILE.damaged when more than a torn last record is lost. Refused unless
   * `confirm` is true, which the console sets only after the operator has confirmed; nothing
   * recovers a log unasked.
   */
  z
    .object({ type: z.literal('sessions.recover'), file: sessionFileNameSchema, confirm: z.boolean() })
    .strict(),
  z.object({ type: z.literal('playback.play') }).strict(),
  z.object({ type: z.literal('playback.pause') }).strict(),
  z.object({ type: z.literal('playback.seek'), position: nonNegative.describe('s') }).strict(),
  z
    .object({
      type: z.literal('playback.speed'),
      speed: finite.refine((v) => v >= 0.1 && v <= 10, 'must be between 0.1 and 10'),
    })
    .strict(),
  z.object({ type: z.literal('playback.close') }).strict(),
  // Calibration wizard (Setup view): captures never move the arm; the operator places the pusher
  // (by hand, on the pendant, or with calibration.jog).
  z.object({ type: z.literal('calibration.get') }).strict(),
  /** Records the live measurement (mocap: pusher body averaged ~0.5 s; robot: tool point) at a table point. */
  z
    .object({ type: z.literal('calibration.capture'), stage: calibrationStageIdSchema, table: point3 })
    .strict(),
  z
    .object({
      type: z.literal('calibration.remove'),
      stage: calibrationStageIdSchema,
      index: z.number().int().min(0),
    })
    .strict(),
  z.object({ type: z.literal('calibration.clear'), stage: calibrationStageIdSchema }).strict(),
  /**
   * Jogs the tool by (dx, dy) m along the robot base axes (at most 50 mm, slowly; Abort stops it).
   * Refused near the table edge; a path that crosses an object or obstacle (calibration.jog-check)
   * moves only with `confirmCrossing`.
   */
  z
    .object({
      type: z.literal('calibration.jog'),
      dx: jogStep,
      dy: jogStep,
      confirmCrossing: z.boolean().optional(),
    })
    .strict(),
  /** Judges a jog's path on the table before it moves (contract/jog-path.ts): nothing moves. */
  z.object({ type: z.literal('calibration.jog-check'), dx: jogStep, dy: jogStep }).strict(),
  /** Fits the stage's pairs: mocap 3D or planar ('2d'); the robot base is always planar. */
  z
    .object({
      type: z.literal('calibration.fit'),
      stage: calibrationStageIdSchema,
      kind: z.enum(['2d', '3d']),
    })
    .strict(),
  /** Writes the stage's fit into the connected lab's setup (file and live link). */
  z.object({ type: z.literal('calibration.save'), stage: calibrationStageIdSchema }).strict(),
  /** Re-plans logged planner step `step` (its index in the log) from its logged state with `settings`. */
  z
    .object({
      type: z.literal('sessions.whatif'),
      step: z.number().int().min(0),
      settings: plannerSettingsSchema,
    })
    .strict(),
]);
export type ConsoleCommand = z.infer<typeof commandSchema>;
export type CommandType = ConsoleCommand['type'];
export type CommandOf<T extends CommandType> = Extract<ConsoleCommand, { type: T }>;

// ---------------------------------------------------------------- shared payloads

export const validationProblemSchema = z.object({ path: z.string(), message: z.string() }).strict();
export type ValidationProblem = z.infer<typeof validationProblemSchema>;

export const connectionSchema = z
  .object({
    id: z.enum(['optitrack', 'ur5', 'gripper', 'workers']),
    label: z.string(),
    state: z.enum(['not-configured', 'disconnected', 'connecting', 'connected', 'error']),
    /** Round-trip or system latency, s; null when unknown. */
    latency: nonNegative.nullable(),
    detail: z.string(),
  })
  .strict();
export type Connection = z.infer<typeof connectionSchema>;

/** One pre-flight check as the Setup view lists it: what was looked at and, when red, why. */
export const preflightCheckSchema = z
  .object({
    id: z.enum([
      'mocap',
      'robot-mode',
      'safety-mode',
      'program',
      'pusher-held',
      'gripper-open',
      'calibration',
      'calibration-agreement',
      'scene',
      'speed-slider',
      'reach',
      'force-limit',
    ]),
    label: z.string(),
    ok: z.boolean(),
    reason: z.string(),
    /** What the operator can do about it from the console: `restart-program` (robot.restart-program). */
    action: z.enum(['restart-program']).optional(),
    /** When red, what the operator does about it. */
    fix: z.string().optional(),
  })
  .strict();
export const preflightReportSchema = z
  .object({ ok: z.boolean(), checks: z.array(preflightCheckSchema) })
  .strict();
export type PreflightReportPayload = z.infer<typeof preflightReportSchema>;

/** A run as the operator sees it: its phase (contract/run-lifecycle.ts) and what it reads now. */
export const runStatusSchema = z
  .object({
    phase: runPhaseSchema,
    mode: runModeSchema.nullable(),
    /** Why the run is in this phase, in words for the operator (e.g. "Aborted by operator"). */
    reason: z.string().nullable(),
    /** Wall-clock start of the run, s since the epoch; null when no run has started. */
    startedAt: nonNegative.nullable(),
    /** Run time at the last change, s. */
    elapsed: nonNegative,
    safety: z.enum(['safe', 'stopped', 'fault', 'unknown']),
    armed: z.boolean(),
    /**
     * A real run waits for the operator's Arm now (its checks judged by contract/arm-readiness.ts);
     * absent or false otherwise.
     */
    awaitingArm: z.boolean().optional(),
  })
  .strict();
export type RunStatus = z.infer<typeof runStatusSchema>;

/** The status before any run has started. */
export const idleRunStatus: RunStatus = {
  phase: 'idle',
  mode: null,
  reason: null,
  startedAt: null,
  elapsed: 0,
  safety: 'unknown',
  armed: false,
};

const stateVector = z.array(finite);
/** A control (contract/state.ts): the pusher's vx, vy (m/s), or the gripper's vx, vy, yaw rate, opening speed. */
const action = z
  .array(finite)
  .min(2)
  .max(4)
  .describe(
    'robot velocities: pusher vx, vy in m/s; gripper vx, vy (m/s), yaw rate (rad/s), opening speed (m/s)',
  );

export const plannerStepSchema = z
  .object({
    /** Executed action index, from 0. */
    step: z.number().int().min(0),
    /** Run time at which planning for this step started, s. */
    time: nonNegative,
    /** Slider ids in state-layout order (see contract/state.ts). */
    sliderIds: z.array(z.string()).min(1),
    /** The measured state planning started from. */
    start: stateVector,
    /** The chosen control sequence. */
    plan: z.array(action).min(1),
    controlDuration: finite.refine((v) => v > 0, 'must be greater than 0').describe('s'),
    /** Predicted states at each control boundary, one trajectory per Parareal iteration (0 = coarse). */
    predictions: z.array(
      z.object({ iteration: z.number().int().min(0), states: z.array(stateVector) }).strict(),
    ),
    /** Largest slider pose change between successive Parareal iterations (convergence). */
    convergence: z.array(
      z.object({ iteration: z.number().int().min(1), translation: nonNegative, rotation: nonNegative }),
    ),
    /** Best cost after each optimizer iteration. */
    costs: z.array(finite),
    /** Optional sampled rollouts (positions only at control boundaries), for "rollout traces on demand". */
    rollouts: z.array(z.array(stateVector)).optional(),
    /**
     * Asynchronous MPC, or a plan checked against a fresh observation before sending: how far the
     * observation was from the state the plan started from (m, rad), and whether that difference
     * made the loop plan again from the observation.
     */
    replan: z
      .object({
        divergence: z.object({ translation: nonNegative, rotation: nonNegative }).strict(),
        replanned: z.boolean(),
      })
      .strict()
      .optional(),
    /**
     * A run's first step, planned while its pre-flight ran from the table observed then: true when
     * the plan sent is that one, false when the table had moved by arming and it was dropped for a
     * fresh plan (replan says how far). Absent for every other step, every simulated run and logs
     * written before runs planned ahead.
     */
    beforeArming: z.boolean().optional(),
    timings: z
      .object({
        planning: nonNegative.describe('s, wall time to produce this plan'),
        prediction: nonNegative.describe('s, wall time spent in predictions'),
        /** Control sequences predicted to make this plan: its work, beside its time. Absent in older logs. */
        sequences: z.number().int().min(0).optional(),
        /**
         * The workers' CPU time for those predictions, s: the plan's work per sequence measured
         * so that other processes on the same cores do not stretch it (planning does). Absent in
         * older logs.
         */
        workerCpu: nonNegative.optional(),
        /**
         * MuJoCo steps of those predictions, and the solver's iterations summed over them: the
         * work, counted. Absent in older logs.
         */
        fineSteps: z.number().int().min(0).optional(),
        solverIterations: z.number().int().min(0).optional(),
        workers: z.number().int().min(0),
        /** Parareal's speedup over the fine model in theory, N / K (ISRR 2019 Eq. 4); null without Parareal. */
        theoreticalSpeedup: nonNegative.nullable(),
      })
      .strict(),
  })
  .strict();
export type PlannerStep = z.infer<typeof plannerStepSchema>;

/** One stage of the calibration wizard: its point pairs, its fit and whether the fit was saved. */
export const calibrationStageSchema = z
  .object({
    /** table: the known table point (m); measured: the live mocap position (mocap frame) or tool point (base frame). */
    pairs: z.array(z.object({ table: point3, measured: point3 }).strict()),
    fit: z
      .object({
        kind: z.enum(['2d', '3d']),
        rms: nonNegative.describe('m'),
        max: nonNegative.describe('m'),
        /** Each pair's distance from the fitted transform (m), in pair order. */
        errors: z.array(nonNegative),
        /** Index of the pair with the largest error. */
        worst: z.number().int().min(0),
      })
      .strict()
      .nullable(),
    /**
     * Where the last save of this stage went and when (wall clock, s since the epoch); null until
     * saved (or after the pairs changed).
     */
    saved: z.object({ file: z.string(), at: nonNegative }).strict().nullable(),
  })
  .strict();
export const calibrationWizardSchema = z
  .object({
    /** The lab the captures come from, in words; null when no lab is connected. */
    lab: z.string().nullable(),
    /** Name of the connected lab's setup. */
    setup: z.string().nullable(),
    /** safety.maxCalibrationResidual of that setup (RMS, m). */
    limit: nonNegative,
    /** A capture is being taken now. */
    capturing: z.boolean(),
    mocap: calibrationStageSchema,
    robot: calibrationStageSchema,
  })
  .strict();
export type CalibrationWizardState = z.infer<typeof calibrationWizardSchema>;
export type CalibrationStageState = z.infer<typeof calibrationStageSchema>;

/**
 * Where a recorded run was started: the console, `parapush run` (headless), an experiment's run in
 * the simulated world (`parapush experiment --sessions`: no lab), or a test or bench.
 */
export const sessionOriginSchema = z.enum(['console', 'headless', 'experiment', 'test', 'bench']);
export type SessionOrigin = z.infer<typeof sessionOriginSchema>;

/** Which prediction model a run asked for and which it used (see sessionSummarySchema.prediction). */
export const predictionChoiceSchema = z
  .object({
    requested: modelRequestKindSchema,
    /** The model spec planned with: fine, coarse, parareal:K or parareal:adaptive:K. */
    model: z.string().nullable(),
    workers: z.number().int().min(1).nullable(),
    /** Why auto chose it (parareal/model-choice.ts); null for a model asked for by name. */
    reason: z.string().nullable(),
  })
  .strict();
export type PredictionChoice = z.infer<typeof predictionChoiceSchema>;

/** What a session log says about its run (stored in the log; see src-main/session). */
export const sessionSummarySchema = z.object({
  sessionId: z.string().nullable(),
  /** Wall clock of the first message, s since the epoch; null for an empty log. */
  startedAt: z.number().nullable(),
  /** From the first to the last message, s. */
  duration: z.number(),
  mode: runModeSchema.nullable(),
  scene: z.string().nullable(),
  model: z.string().nullable(),
  /** How the run ended; "interrupted" when the log was cut short and recovered. */
  outcome: z.string(),
  outcomeDetail: z.string().nullable(),
  softwareVersion: z.string().nullable(),
  /** The lab the run was on, as its devices said (contract/lab-view.ts); absent in older logs. */
  lab: labKindSchema.nullable().optional(),
  /** Where the run was started; absent in logs summarised before it was kept. */
  origin: sessionOriginSchema.nullable().optional(),
  /**
   * The prediction model the run asked for (the settings' kind: auto, fine, ...) and, once it
   * planned, the one it used and on how many workers, with auto's reason (the log's `/run/model`);
   * absent in logs summarised before it was kept, `model`/`workers`/`reason` null in logs older
   * than `/run/model` or of runs that never got to plan.
   */
  prediction: predictionChoiceSchema.nullable().optional(),
  recovered: z.boolean(),
  messageCounts: z.record(z.string(), z.number().int()),
});
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

export const sessionListingSchema = z
  .object({
    file: z.string(),
    state: z.enum(['complete', 'needs-recovery', 'recording', 'unreadable']),
    summary: sessionSummarySchema.nullable(),
    problem: z.string().nullable(),
    bytes: z.number().int().min(0),
  })
  .strict();
export type SessionListingInfo = z.infer<typeof sessionListingSchema>;

export const playbackStatusSchema = z
  .object({
    file: z.string(),
    duration: nonNegative.describe('s'),
    position: nonNegative.describe('s'),
    playing: z.boolean(),
    speed: finite,
    ended: z.boolean(),
    /** Counts seeks: the view clears what it drew when this changes. */
    seeks: z.number().int().min(0),
  })
  .strict();
export type PlaybackStatusInfo = z.infer<typeof playbackStatusSchema>;

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

const sceneResult = z
  .object({
    scene: sceneSchema.nullable(),
    file: z.string().nullable(),
    problems: z.array(validationProblemSchema),
  })
  .strict();

const calibrationResult = z.object({ calibration: calibrationWizardSchema }).strict();

export const snapshotSchema = z
  .object({
    scene: sceneSchema.nullable(),
    sceneFile: z.string().nullable(),
    sceneSource: sceneSourceSchema.nullable(),
    settings: plannerSettingsSchema,
    presets: z.array(z.object({ name: plannerPresetNameSchema, label: z.string() }).strict()),
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
  /** The library, the operator's scenes first, and the folder saves go to. */
  'scene.list': z.object({ scenes: z.array(sceneRefSchema), saveDir: z.string() }).strict(),
  'scene.load': sceneResult,
  'scene.import': sceneResult,
  /** saved false: `path` exists and was left alone (ask, then save again with overwrite). */
  'scene.save': z.object({ file: z.string(), path: z.string(), saved: z.boolean() }).strict(),
  'scene.validate': z.object({ problems: z.array(validationProblemSchema) }).strict(),
  'scene.update': sceneResult,
  'settings.get': z.object({ settings: plannerSettingsSchema }).strict(),
  'settings.set': z.object({ settings: plannerSettingsSchema }).strict(),
  'settings.preset': z.object({ settings: plannerSettingsSchema }).strict(),
  'run.start': z.object({ status: runStatusSchema }).strict(),
  'run.arm': z.object({ status: runStatusSchema }).strict(),
  'run.pause': z.object({ status: runStatusSchema }).strict(),
  'run.resume': z.object({ status: runStatusSchema }).strict(),
  'run.abort': z.object({ status: runStatusSchema }).strict(),
  'connections.get': z.object({ connections: z.array(connectionSchema) }).strict(),
  'physics.fit': labPhysicsFitSchema,
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
  'sessions.list': z.object({ folder: z.string(), sessions: z.array(sessionListingSchema) }).strict(),
  'sessions.open': z
    .object({
      summary: sessionSummarySchema,
      steps: z.number().int().min(0),
      /** The scene the run was recorded on, for the view only: it never becomes the live scene. */
      scene: sceneSchema.nullable(),
      playback: playbackStatusSchema,
      /** The planner's prediction error per executed control, as logged; null in a log without it. */
      predictionError: runPredictionErrorSchema.nullable(),
    })
    .strict(),
  'sessions.recover': z
    .object({
      summary: sessionSummarySchema,
      /** Messages in the recovered log. */
      messages: z.number().int().min(0),
      /** What could not be kept, in words ("lost 1 message in 1 damaged range of ... bytes: ..."). */
      lost: z.string(),
      /** File name of the kept original, or null when only a torn last record was lost. */
      damagedCopy: z.string().nullable(),
    })
    .strict(),
  'playback.play': z.object({ playback: playbackStatusSchema }).strict(),
  'playback.pause': z.object({ playback: playbackStatusSchema }).strict(),
  'playback.seek': z.object({ playback: playbackStatusSchema }).strict(),
  'playback.speed': z.object({ playback: playbackStatusSchema }).strict(),
  'playback.close': z.object({}).strict(),
  'sessions.whatif': z.object({ original: plannerStepSchema, replanned: plannerStepSchema }).strict(),
  'calibration.get': calibrationResult,
  'calibration.capture': calibrationResult,
  'calibration.remove': calibrationResult,
  'calibration.clear': calibrationResult,
  'calibration.jog': calibrationResult,
  'calibration.jog-check': z.object({ check: jogCheckSchema }).strict(),
  'calibration.fit': calibrationResult,
  'calibration.save': calibrationResult,
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
