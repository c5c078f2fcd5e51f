/**
 * Every safety limit, defined once: its value, its unit and why. The scene, setup and
 * control-program schemas, the supervisor's defaults, the scene guard, the calibration agreement,
 * motion capture's frame order, the safety thread's messages and its heartbeat import them from
 * here; docs/safety.md's table names each by its constant (test/contract/safety-limits.test.ts
 * checks the table and each user against this module).
 *
 * SI units (m, rad, s, kg). Plain numbers only: the renderer and the safety thread import it too.
 */

// ---- The hardware's caps, shared by several schemas ----

/**
 * Fastest the tool (a pusher, a gripper's grasp centre) may ever be commanded, m/s: what the UR5
 * pushing set-up is built for. Caps a scene's `maxPusherSpeed` and the control program's
 * `maxSpeed`.
 */
export const TOOL_SPEED_CAP = 0.5;

/** Fastest yaw rate of the tool, rad/s: the UR5 wrist's joint speed limit (180 deg/s). */
export const YAW_RATE_CAP = Math.PI;

// ---- Stops ----

/**
 * Deceleration of every stop the console decides (supervisor stops and holds) and, by default, of
 * the program's own watchdog stop, m/s^2. Fixed, not read from a file: from TOOL_SPEED_CAP the arm
 * stands still within 0.33 s and 8 cm.
 */
export const STOP_DECELERATION = 1.5;

/**
 * Angular deceleration of the tool's yaw in every stop (the program's and the console's), rad/s^2.
 * Fixed like STOP_DECELERATION: from YAW_RATE_CAP the tool stands still within 0.5 s and 0.8 rad;
 * from a gripper scene's 1 rad/s within 0.17 s and 0.08 rad.
 */
export const STOP_YAW_DECELERATION = 6;

/**
 * Hardest stop the control program takes from a stop command, m/s^2 (the top of stopAcceleration's
 * range): a stop asking for more, or for a non-finite value, stops at the program's own.
 */
export const MAX_STOP_DECELERATION = 3;

/**
 * Time from what motion capture shows to the arm starting to brake, s: a 120 Hz frame and an 8 ms
 * command period. With STOP_DECELERATION it sizes the margin kept from obstacles and the table edge
 * for objects in motion.
 */
export const STOP_REACTION = 1 / 120 + 0.008;

// ---- The scene file ----

/**
 * Upper bounds of a scene: a scene file is edited by hand and over the console API, so it is not
 * trusted to stay physical. A faster pusher than the UR5 set-up may move, thousands of obstacles
 * or a vanishing timestep would otherwise reach the robot or hang the physics workers.
 */
export const SCENE_LIMITS = {
  /** Pusher speed, m/s: the tool's cap. */
  maxPusherSpeed: TOOL_SPEED_CAP,
  /**
   * Sliders. The learned coarse model has four slots and refuses scenes with more where it is
   * chosen (learned/geometry.ts); the fine model and the clutter task take more.
   */
  sliders: 8,
  obstacles: 32,
  /** Fine-model timestep, s: below 0.1 ms a rollout takes hours; above 10 ms contacts blow up. */
  fineTimestep: { min: 1e-4, max: 0.01 },
  /** Each side of the table, m: no lab table is larger. */
  tableSize: 5,
  /** Points of a table outline: the edge cost measures every object against every edge. */
  outlinePoints: 64,
  /** Any one body dimension (radius, size, height), m. */
  bodySize: 1,
  /** Mass of a slider, kg. */
  mass: 50,
  /** Friction coefficients. */
  friction: 5,
  /** Gap between the gripper's fingers fully open, m: the Robotiq 2F-140's stroke, the widest. */
  gripperOpening: 0.14,
  /** Gripper yaw rate, rad/s: the wrist's cap. */
  maxYawRate: YAW_RATE_CAP,
  /** Speed of the gripper's opening, m/s: the Robotiq 2F-85's fastest (150 mm/s). */
  maxOpeningSpeed: 0.15,
} as const;

// ---- Task and planner settings ----

/**
 * Longest control, s: the planner's own judgement of obstacle contact comes after each control,
 * and a longer one (at 0.5 m/s, 1 m a control) leaves all of it to the supervisor. The papers'
 * controls are 1 s.
 */
export const MAX_CONTROL_DURATION = 2;
/** Most controls a plan holds (the horizon): each is a prediction the workers must make in time. */
export const MAX_HORIZON = 50;
/** Most controls a run executes (its action limit): a run ends, whatever its task says. */
export const MAX_ACTIONS = 1000;

// ---- The lab setup file ----

/**
 * Physical bounds of every safety-relevant setup field. A setup file is written by calibration or
 * by hand, so it is not trusted to be sensible: a negative margin, an inverted height band or a
 * near-zero acceleration would quietly disable a check or stretch a stop over seconds.
 */
export const SETUP_LIMITS = {
  /** Each side of the physical table, m: the UR5 reaches 0.85 m, so more is not one work cell. */
  tableSize: { min: 0.1, max: 2 },
  /** Tool distance kept from the table edges, m: at least a pusher radius, at most a sensible border. */
  workspaceMargin: { min: 0.01, max: 0.2 },
  /** Pusher tip height above the table, m: a few mm into the surface (calibration noise) to 5 cm. */
  height: { min: -0.005, max: 0.05 },
  /** Smallest height band, m: narrower than the arm's height hold cannot keep. */
  minHeightBand: 0.005,
  /** Largest acceptable calibration residual, RMS, m. */
  maxCalibrationResidual: { min: 0.0001, max: 0.01 },
  /** Command acceleration, m/s^2: the control program caps at 1.5; below 0.1 a hold drags on. */
  acceleration: { min: 0.1, max: 1.5 },
  /** Each component of the pusher offset from the tool centre point, m (gripper plus pusher). */
  pusherOffset: 0.3,
} as const;

// ---- The control program on the controller ----

/**
 * Smallest acceleration the program takes from a command (it raises smaller ones), m/s^2: a
 * literal in the .script file and in the virtual controller's runner, checked equal by a test.
 */
export const MIN_COMMAND_ACCELERATION = 0.01;

/**
 * Ranges of the control program's settings (robot/control-program.ts): a lab config may set them
 * only within these.
 */
export const CONTROL_PROGRAM_LIMITS = {
  /** s without a fresh command: one CB3 control cycle (8 ms) at least, else it trips between two. */
  watchdogTimeout: { min: 0.008, max: 0.1 },
  /** Deceleration of the watchdog's stop, m/s^2. */
  stopAcceleration: { min: 1, max: MAX_STOP_DECELERATION },
  /** Hard cap on the commanded tool speed, m/s (above 0). */
  maxSpeed: TOOL_SPEED_CAP,
  /** Cap on the commanded acceleration, m/s^2. */
  maxAcceleration: { min: MIN_COMMAND_ACCELERATION, max: 3 },
  /** Hard cap on the commanded yaw rate about base z, rad/s (above 0). */
  maxYawRate: YAW_RATE_CAP,
  /** Cap on the commanded yaw acceleration, rad/s^2. */
  maxYawAcceleration: { min: MIN_COMMAND_ACCELERATION, max: 10 },
  /** Gain that holds the start height, 1/s (above 0). */
  heightGain: 10,
  /** Clamp on the height-hold velocity, m/s (above 0). */
  maxHeightCorrection: 0.05,
} as const;

/**
 * The settings the shipped program runs with and the re-implementation in the virtual controller
 * assumes; test/virtual-lab/urscript-file.test.ts checks the .script file against them.
 */
export const CONTROL_PROGRAM_DEFAULTS = {
  /** s: a stalled command stream stops the arm within 100 ms. */
  watchdogTimeout: 0.1,
  stopAcceleration: STOP_DECELERATION,
  /** m/s: half the cap, what the papers' pushes need. */
  maxSpeed: 0.25,
  maxAcceleration: 1.5,
  maxYawRate: 1.5,
  maxYawAcceleration: 6,
  heightGain: 2,
  maxHeightCorrection: 0.02,
} as const;

// ---- The supervisor ----

/**
 * The supervisor's limits when a run's configuration leaves them out (safety/supervisor.ts).
 */
export const SUPERVISOR_DEFAULTS = {
  /** A command is judged on where it takes the tool within this time, s. */
  lookahead: 0.2,
  /** Motion capture older than this stops the arm, s: twelve 120 Hz frames. */
  mocapMaxAge: 0.1,
  /** A robot state older than this stops the arm, s: 12 CB3 states, 50 e-Series ones. */
  robotStateMaxAge: 0.1,
  /** While the arm moves, commands must keep coming this often, s: the control program's watchdog. */
  commandMaxGap: CONTROL_PROGRAM_DEFAULTS.watchdogTimeout,
} as const;

/**
 * Obstacle clearance of the supervisor's lookahead, m: the tool's path over the next lookahead
 * keeps this far from every obstacle (safety/scene-guard.ts). 5 mm, a tenth of the isrr-obstacle
 * object's radius: enough to absorb the calibration drift the supervisor tolerates, small enough
 * not to block the paths the planner's obstacle costs keep clear (their own margin is a cost
 * term's, planning/costs/cost-terms.ts DEFAULT_COST_MARGIN, not a safety limit).
 */
export const LOOKAHEAD_CLEARANCE = 0.005;

/**
 * How much faster than the tool's speed limit a body on the table can move while a run is armed:
 * the tool moves at most at the limit, and an object it strikes leaves at most at twice the
 * striker's speed (a perfectly elastic collision with a much heavier striker); pushed
 * quasi-statically, objects move slower than the tool. A pose that moved faster was not measured
 * on this table (mocap-suspect, `pose-jump`).
 */
export const BODY_SPEED_FACTOR = 2;

// ---- Calibration agreement: motion capture and the robot on the pusher ----

/**
 * Largest distance between the pusher as motion capture sees it and as the robot's tool pose
 * (through the calibrations) places it, at rest, m: the calibration residual limit's range.
 */
export const MAX_CALIBRATION_DRIFT = 0.005;

/**
 * How far apart two observations of a moving pusher may be for timing alone, s: motion capture's
 * latency and the robot state's period, times the tool's speed, is added to the limit. 50 ms: a
 * 120 Hz frame, the 2 ms RTDE period and the stream latencies, with room for a process that
 * handles the two streams' packets late on a loaded machine.
 */
export const DRIFT_TIMING = 0.05;

/**
 * Consecutive frames over the limit before a running supervisor stops (about 25 ms at 120 Hz): a
 * moved calibration stays moved, while a frame and a robot state handled far apart in time
 * disagree once.
 */
export const DRIFT_FRAMES = 3;

// ---- Motion capture's frame order (mocap/frame-order.ts) ----

/** How long another numbering must keep increasing before it is taken as the new one, s. */
export const RESTART_CONFIRM = 0.5;

/**
 * Frames per second no motion-capture camera exceeds: OptiTrack's cameras stream at most a few
 * hundred frames per second at full resolution, so a numbering that advances faster than this
 * between two arrivals was not counted by one camera clock.
 */
export const MAX_FRAME_RATE = 1000;

/**
 * Frames can arrive bunched (a backlog of the network or of Motive sent at once): a frame may
 * arrive this much sooner after another than its camera time says, s. The staleness limit: a
 * backlog longer than that has stopped any run already.
 */
export const FRAME_BUNCHING = SUPERVISOR_DEFAULTS.mocapMaxAge;

// ---- The safety thread ----

/**
 * Bounds of the timing fields that cross to the safety thread, s. The thread trusts no number from
 * the main thread: a bug there that sent a staleness age of 1e9 would switch the staleness stops
 * off, a streamed control of an hour would run on without the planner, a period of a nanosecond
 * would flood the thread's timers. SUPERVISOR_DEFAULTS sit inside them.
 */
export const SAFETY_MESSAGE_LIMITS = {
  /**
   * Largest staleness age (motion capture, robot state) and command gap, s: ten times the
   * defaults, the slack a test on a loaded machine needs, and still a stop within a second.
   */
  maxAge: 1,
  /** Lookahead of the motion check, s: below 0.05 it sees less than a stop takes, above 2 no task needs it. */
  lookahead: { min: 0.05, max: 2 },
  /** A streamed control or finger move lasts at most one control of the longest allowed duration, s. */
  maxDuration: MAX_CONTROL_DURATION,
  /**
   * Period of a streamed control, s: no faster than the controller's 500 Hz RTDE cycle, no
   * slower than its watchdog (a slower stream would trip it between commands).
   */
  period: { min: 0.002, max: CONTROL_PROGRAM_DEFAULTS.watchdogTimeout },
} as const;

/**
 * The main thread's watch on the safety thread (lab-link/safety-thread/safety-thread.ts): no
 * heartbeat (one every 50 ms) for `heartbeatLimit` s ends it; it looks every `heartbeatCheck` s,
 * and a look this much later than due says the main thread itself stalled. The control program's
 * watchdog has stopped the arm long before.
 */
export const SAFETY_THREAD_WATCH = { heartbeatLimit: 1, heartbeatCheck: 0.1 } as const;
