/**
 * The calibration wizard behind the Setup view: the rigid bodies' pivots (calibration/pivots.ts:
 * the pusher's measured by turning the tool about its tip before the table stage, each object's
 * by standing it on its start pose after it), and two stages, motion capture -> table and table ->
 * robot base. In each the operator places the pusher at known table points (by hand, on the
 * pendant, or with the wizard's jog: short slow moves through the control program, robot/jog.ts)
 * and the wizard records the live measurement there, fits the stage's calibration
 * (src-main/calibration), and saves it into the connected lab's setup once its residual passes the
 * same check as the pre-flight checklist's. Pairs belong to one lab: when the console switches
 * labs they are dropped.
 */
import path from 'node:path';
import type {
  CalibrationStageId,
  CalibrationWizardState,
  JogCheck,
  PivotStageState,
} from '#contract/console-api';
import { jogBodies, judgeJogPath, toolReach } from '#contract/jog-path';
import { wallSeconds } from '#contract/time';
import {
  fitCalibration2d,
  fitCalibration3d,
  saveCalibration,
  tableOrientation,
  tablePoint,
  type Calibration,
} from '../calibration/mocap-table';
import { orientationToZUp, pointToZUp } from '../calibration/axes';
import { CalibrationError } from '../calibration/fit';
import { pivotFromPlacement, pivotFromTurn, type PivotOffset } from '../calibration/pivots';
import { checkResidual } from '../calibration/residual';
import { fitRobotBase } from '../calibration/robot-base';
import { norm, sub, type Vec3 } from '../common/rotation';
import type { Setup } from '../calibration/setup-file';
import { calibrated } from '../calibration/setup-template';
import {
  captureBodyPose,
  captureMocapPoint,
  captureRobotPoint,
  CaptureRefused,
  type BodyCapture,
  type CaptureLink,
} from './calibration-capture';
import type { LabConnection } from '../lab-link/lab-connection';
import { tableNow } from '../lab-link/table-now';

interface Pair {
  table: Vec3;
  measured: Vec3;
}

/** A fit ready to save: how it is written into the setup, and how well it matched. */
interface Fit {
  kind: '2d' | '3d';
  errors: number[];
  rms: number;
  max: number;
  apply(setup: Setup): Setup;
}

interface Stage {
  pairs: Pair[];
  fit: Fit | null;
  saved: { file: string; at: number } | null;
}

/** Where the live measurements come from (the lab by default; replaceable to drive the fit path). */
export interface CaptureSource {
  mocap(link: CaptureLink): Promise<Vec3>;
  robot(link: CaptureLink): Promise<Vec3>;
  /** A rigid body's streamed pose (its pivot), held still. */
  body(link: CaptureLink, body: string, what: string): Promise<BodyCapture>;
}

export const labCaptures: CaptureSource = {
  mocap: (link) => captureMocapPoint(link),
  robot: async (link) => captureRobotPoint(link),
  body: (link, body, what) => captureBodyPose(link, body, what),
};

/**
 * The tool's turns for the pusher's pivot (rad), each followed by a capture but the last, which
 * brings it back: the pivot seen at 0, 30, 60 and -30 deg.
 */
const TURNS = [30, 30, -90, 30].map((d) => (d * Math.PI) / 180);
/** Largest distance of a turned tip from the circle's centre (m): more, and the tip moved. */
const MAX_TURN_SPREAD = 0.002;

/** A measured pivot offset, and for a turn how well the tip stayed put (m). */
interface PivotMeasurement {
  offset: PivotOffset;
  spread?: number;
}

export interface CalibrationWizardOptions {
  /** The lab the console is connected to (the run controller's current session). */
  session: () => LabConnection | null;
  captures?: CaptureSource;
  /** Wall clock, s since the epoch. */
  now?: () => number;
}

const DEFAULT_LIMIT = 0.003;
const emptyStage = (): Stage => ({ pairs: [], fit: null, saved: null });

export class CalibrationWizard {
  private readonly captures: CaptureSource;
  private readonly now: () => number;
  private stages: Record<CalibrationStageId, Stage> = { mocap: emptyStage(), robot: emptyStage() };
  /** Pivot offsets measured and not yet saved, by rigid-body name. */
  private pivots = new Map<string, PivotMeasurement>();
  private pivotsSaved: { file: string; at: number } | null = null;
  private pairsFrom: LabConnection | null = null;
  private pivotsFrom: LabConnection | null = null;
  private capturing = false;
  /** The jog under way, to stop it (Abort); null: none. */
  private jogging: AbortController | null = null;

  constructor(private readonly options: CalibrationWizardOptions) {
    this.captures = options.captures ?? labCaptures;
    this.now = options.now ?? wallSeconds;
  }

  state(): CalibrationWizardState {
    const session = this.currentConnection();
    const setup = session?.current()?.setup ?? null;
    const stage = (s: Stage): CalibrationWizardState['mocap'] => ({
      pairs: s.pairs.map((p) => ({ table: [...p.table], measured: [...p.measured] })),
      fit: s.fit && {
        kind: s.fit.kind,
        rms: s.fit.rms,
        max: s.fit.max,
        errors: [...s.fit.errors],
        worst: s.fit.errors.indexOf(Math.max(...s.fit.errors)),
      },
      saved: s.saved,
    });
    return {
      lab: session?.current() ? session.description : null,
      setup: setup?.name ?? null,
      limit: setup?.safety.maxCalibrationResidual ?? DEFAULT_LIMIT,
      capturing: this.capturing,
      mocap: stage(this.stages.mocap),
      robot: stage(this.stages.robot),
      pivots: this.pivotState(session?.current() ?? null),
    };
  }

  private pivotState(link: CaptureLink | null): PivotStageState {
    if (!link) return { bodies: [], saved: this.pivotsSaved };
    const view = (p: PivotOffset) => ({ position: [...p.position] as Vec3, yaw: p.yaw, method: p.method });
    return {
      bodies: pivotBodies(link).map((b) => {
        const m = this.pivots.get(b.body);
        const saved = link.setup.mocap.pivots?.[b.body];
        return {
          ...b,
          measured: m ? { ...view(m.offset), ...(m.spread !== undefined ? { spread: m.spread } : {}) } : null,
          saved: saved ? view(saved) : null,
        };
      }),
      saved: this.pivotsSaved,
    };
  }

  /**
   * The pusher body's pivot offset (calibration/pivots.ts pivotFromTurn): the arm turns the tool
   * about the vertical through the pusher's tip (TURNS), the pivot's streamed pose is captured at
   * each angle, and the circle it traces is centred on the tip. The tool ends where it started.
   * Measured before the motion capture -> table stage, whose points are then the tip's.
   */
  async measurePusherPivot(): Promise<CalibrationWizardState> {
    const { session, link } = this.connected();
    const body = pivotBodies(link).find((b) => b.role === 'pusher')?.body;
    if (!body)
      throw new CaptureRefused(
        'the scene binds no motion-capture rigid body to the pusher (pusher.rigidBody)',
      );
    if (this.capturing) throw new Error('a capture is already in progress');
    if (this.jogging) throw new Error('the arm is jogging: measure once it has stopped');
    const control = new AbortController();
    this.capturing = true;
    this.jogging = control;
    const samples: BodyCapture[] = [];
    let turned = 0;
    try {
      samples.push(await this.captures.body(link, body, 'pusher'));
      for (const [i, angle] of TURNS.entries()) {
        turned += await link.robot.turn(angle, control.signal);
        if (i < TURNS.length - 1) samples.push(await this.captures.body(link, body, 'pusher'));
      }
    } catch (err) {
      // Back to where the tool started, whatever stopped the measurement (not after an abort).
      if (!control.signal.aborted && Math.abs(turned) > 0.01)
        await link.robot.turn(-turned, control.signal).catch(() => undefined);
      throw err;
    } finally {
      this.capturing = false;
      this.jogging = null;
    }
    if (this.options.session() !== session) throw new Error('the lab changed during the measurement');
    const up = link.setup.mocap.upAxis;
    const fit = pivotFromTurn(
      samples.map((p) => ({
        position: pointToZUp(p.position, up),
        orientation: orientationToZUp(p.orientation, up),
      })),
    );
    if (fit.spread > MAX_TURN_SPREAD)
      throw new CalibrationError(
        `the pusher's tip moved ${(fit.spread * 1000).toFixed(1)} mm while the tool turned (at most ${(MAX_TURN_SPREAD * 1000).toFixed(1)} mm): check the pusher offset and that the pusher sits firmly in the fingers`,
      );
    this.pivotsFrom = session;
    this.pivots.set(body, { offset: fit.offset, spread: fit.spread });
    this.pivotsSaved = null;
    return this.state();
  }

  /**
   * A slider body's pivot offset from the object standing on its start pose (the scene's, marked
   * on the table): the pivot's streamed pose through the setup's motion capture -> table
   * calibration against that pose (pivots.ts pivotFromPlacement). Needs that stage calibrated.
   */
  async measureSliderPivot(sliderId: string): Promise<CalibrationWizardState> {
    const { session, link } = this.connected();
    const slider = link.scene.sliders.find((s) => s.id === sliderId);
    if (!slider) throw new Error(`the scene has no object ${sliderId}`);
    if (!slider.rigidBody)
      throw new CaptureRefused(`the scene binds no rigid body to ${sliderId} (rigidBody)`);
    if ((link.setup.notCalibrated ?? []).includes('mocap'))
      throw new Error('calibrate motion capture -> table first: the placement is judged on the table');
    if (this.capturing) throw new Error('a capture is already in progress');
    this.capturing = true;
    let pose: BodyCapture;
    try {
      pose = await this.captures.body(link, slider.rigidBody, sliderId);
    } finally {
      this.capturing = false;
    }
    if (this.options.session() !== session) throw new Error('the lab changed during the capture');
    const c = link.setup.mocap;
    const offset = pivotFromPlacement(
      { position: tablePoint(c, pose.position), orientation: tableOrientation(c, pose.orientation) },
      slider.pose,
    );
    this.pivotsFrom = session;
    this.pivots.set(slider.rigidBody, { offset });
    this.pivotsSaved = null;
    return this.state();
  }

  /**
   * Writes the measured pivot offsets into the setup (with the offsets of bodies not measured
   * again). A new pusher pivot moves the pusher's point: the motion capture -> table pairs taken
   * with the old one are dropped, and that stage must be calibrated again.
   */
  savePivots(): CalibrationWizardState {
    const { session, link } = this.connected();
    if (this.pivots.size === 0) throw new Error('measure a pivot before saving');
    const pusher = pivotBodies(link).find((b) => b.role === 'pusher')?.body;
    const before = link.setup.mocap.pivots ?? {};
    const measured = Object.fromEntries([...this.pivots].map(([body, m]) => [body, m.offset]));
    const pusherMoved = pusher !== undefined && measured[pusher] !== undefined;
    const setup: Setup = {
      ...link.setup,
      mocap: { ...link.setup.mocap, pivots: { ...before, ...measured } },
    };
    const file = session.saveSetup(setup);
    if (pusherMoved && this.stages.mocap.pairs.length > 0) this.stages.mocap = emptyStage();
    this.pivots.clear();
    this.pivotsSaved = { file, at: this.now() };
    return this.state();
  }

  /** Records the live measurement at a known table point (m). */
  async capture(stageId: CalibrationStageId, table: Vec3): Promise<CalibrationWizardState> {
    const { session, link } = this.connected();
    if (this.capturing) throw new Error('a capture is already in progress');
    if (this.jogging) throw new Error('the arm is jogging: capture once it has stopped');
    this.capturing = true;
    let measured: Vec3;
    try {
      measured = await this.captures[stageId](link);
    } finally {
      this.capturing = false;
    }
    if (this.options.session() !== session) throw new Error('the lab changed during the capture');
    this.pairsFrom = session;
    const stage = this.stages[stageId];
    this.stages[stageId] = {
      pairs: [...stage.pairs, { table: [...table], measured }],
      fit: null,
      saved: null,
    };
    return this.state();
  }

  /**
   * What a jog by (dx, dy) m along the robot base axes would do on the table (contract/
   * jog-path.ts): the pusher's path, where the lab measures it now, against the scene's obstacles
   * and the objects where motion capture sees them, and against the table edge with the setup's
   * workspace margin. Objects it cannot see are judged at their start poses, and the operator is
   * asked to look. The path goes through the setup's table -> robot base calibration: during its
   * own calibration it is as good as the saved one.
   */
  checkJog(dx: number, dy: number): JogCheck {
    const { link } = this.connected();
    // A setup from a template has placeholder frames until both stages are calibrated: where the
    // pusher is on the table is not known, so the path cannot be judged, and the operator looks.
    const uncalibrated = link.setup.notCalibrated ?? [];
    if (uncalibrated.length > 0)
      return {
        verdict: 'confirm',
        message: `the setup is not calibrated yet (${uncalibrated.join(' and ')}), so the console cannot place the jog's path on the table: look at the arm and the table`,
      };
    const now = tableNow(link);
    if (!now.pusher)
      return {
        verdict: 'confirm',
        message:
          "the console cannot tell where the pusher is (no motion-capture pose and no robot state), so it cannot check the jog's path: look at the arm",
      };
    const poses = now.estimate.poses;
    const seen = new Map(
      (poses?.sliders ?? []).flatMap((s) => (s.pose && !s.stale ? [[s.id, s.pose] as const] : [])),
    );
    const d = now.toTable(dx, dy);
    const verdict = judgeJogPath(
      {
        table: link.scene.table,
        margin: link.setup.safety.workspaceMargin,
        reach: toolReach(link.scene),
        bodies: jogBodies(link.scene, seen),
      },
      now.pusher,
      { x: now.pusher.x + d.x, y: now.pusher.y + d.y },
    );
    if (verdict.verdict === 'refused') return { verdict: 'refused', message: verdict.message };
    const unseen = link.scene.sliders.filter((s) => !seen.has(s.id)).map((s) => s.id);
    const blind =
      unseen.length > 0
        ? `motion capture does not see ${unseen.join(', ')} now: judged at ${unseen.length === 1 ? 'its' : 'their'} start pose; look at the table`
        : null;
    if (verdict.verdict === 'crosses')
      return { verdict: 'confirm', message: blind ? `${verdict.message}; ${blind}` : verdict.message };
    return blind
      ? { verdict: 'confirm', message: `the path looks clear, but ${blind}` }
      : { verdict: 'clear', message: null };
  }

  /**
   * Jogs the tool (and the pusher it holds) by (dx, dy) m along the robot base axes, through the
   * control program like every move of the arm (robot/jog.ts), so the pusher can be brought to
   * each table point from the console, on a real lab or the virtual one. Refused near the table
   * edge, and where the path crosses an object or obstacle unless the operator confirmed it
   * (checkJog). Resolves with the distance moved (m).
   */
  async jog(dx: number, dy: number, confirmCrossing = false): Promise<number> {
    const { link } = this.connected();
    if (this.jogging) throw new Error('a jog is already under way');
    if (this.capturing) throw new Error('a capture is in progress: hold the pusher still');
    const check = this.checkJog(dx, dy);
    if (check.verdict === 'refused') throw new Error(`jog ${check.message}`);
    if (check.verdict === 'confirm' && !confirmCrossing)
      throw new Error(`jog not started: ${check.message}; confirm to jog anyway`);
    const control = new AbortController();
    this.jogging = control;
    try {
      return await link.robot.jog(dx, dy, control.signal);
    } finally {
      this.jogging = null;
    }
  }

  /** True while a jog moves the arm (no run may start then). */
  get jogInProgress(): boolean {
    return this.jogging !== null;
  }

  /** Stops a jog under way (the operator's Abort); nothing when none is. */
  stopJog(): void {
    this.jogging?.abort();
  }

  remove(stageId: CalibrationStageId, index: number): CalibrationWizardState {
    this.currentConnection();
    const stage = this.stages[stageId];
    if (index >= stage.pairs.length) throw new Error(`there is no pair ${index + 1} to remove`);
    this.stages[stageId] = { pairs: stage.pairs.filter((_, i) => i !== index), fit: null, saved: null };
    return this.state();
  }

  clear(stageId: CalibrationStageId): CalibrationWizardState {
    this.stages[stageId] = emptyStage();
    return this.state();
  }

  /** Fits the stage's pairs; too few or collinear points give the fitting library's error. */
  fit(stageId: CalibrationStageId, kind: '2d' | '3d'): CalibrationWizardState {
    const { link } = this.connected();
    const stage = this.stages[stageId];
    const fit = stageId === 'mocap' ? fitMocap(stage.pairs, link.setup, kind) : fitRobot(stage.pairs, kind);
    this.stages[stageId] = { ...stage, fit, saved: null };
    return this.state();
  }

  /** Writes the stage's fit into the connected lab's setup (file and live link). */
  save(stageId: CalibrationStageId): CalibrationWizardState {
    const { session, link } = this.connected();
    const stage = this.stages[stageId];
    if (!stage.fit) throw new Error('fit the calibration before saving it');
    const check = checkResidual(stage.fit.rms, link.setup.safety.maxCalibrationResidual);
    if (!check.ok) throw new Error(`${check.reason}: recapture or remove the worst pair`);
    const setup = stage.fit.apply(link.setup);
    const file = session.saveSetup(setup);
    // The motion-capture calibration is also kept on its own, per setup name, as the CLI saves it.
    if (stageId === 'mocap') saveCalibration(path.join(path.dirname(file), 'calibrations'), setup.mocap);
    this.stages[stageId] = { ...stage, saved: { file, at: this.now() } };
    return this.state();
  }

  /** The current session; pairs recorded on another lab are dropped. */
  private currentConnection(): LabConnection | null {
    const session = this.options.session();
    if (this.pairsFrom && session !== this.pairsFrom) {
      this.stages = { mocap: emptyStage(), robot: emptyStage() };
      this.pairsFrom = null;
    }
    if (this.pivotsFrom && session !== this.pivotsFrom) {
      this.pivots.clear();
      this.pivotsSaved = null;
      this.pivotsFrom = null;
    }
    return session;
  }

  private connected() {
    const session = this.currentConnection();
    const link = session?.current();
    if (!session || !link) throw new Error('connect a lab first: calibration reads its live measurements');
    return { session, link };
  }
}

function fitMocap(pairs: readonly Pair[], setup: Setup, kind: '2d' | '3d'): Fit {
  const pointPairs = pairs.map((p) => ({ mocap: p.measured, table: p.table }));
  const fitter = kind === '3d' ? fitCalibration3d : fitCalibration2d;
  const calibration: Calibration = fitter(pointPairs, setup.mocap.upAxis, setup.mocap.setup);
  return {
    kind,
    errors: pairs.map((p) => norm(sub(tablePoint(calibration, p.measured), p.table))),
    rms: calibration.residual.rms,
    max: calibration.residual.max,
    // The bodies' pivot offsets stay: they are the bodies', not the frame's.
    apply: (s) =>
      calibrated(
        { ...s, mocap: s.mocap.pivots ? { ...calibration, pivots: s.mocap.pivots } : calibration },
        'mocap',
      ),
  };
}

/** Table -> base is planar by construction (the arm moves in the base xy plane). */
function fitRobot(pairs: readonly Pair[], kind: '2d' | '3d'): Fit {
  if (kind !== '2d') throw new Error('the robot base calibration is planar (yaw + offset): fit it as 2d');
  const fit = fitRobotBase(
    pairs.map((p) => p.table),
    pairs.map((p) => p.measured),
  );
  return {
    kind,
    errors: fit.errors,
    rms: fit.residual.rms,
    max: fit.residual.max,
    apply: (s) =>
      calibrated(
        {
          ...s,
          robot: { ...s.robot, calibration: fit.calibration, residual: fit.residual, points: fit.points },
        },
        'robot',
      ),
  };
}

/** The bound bodies whose pivots the wizard measures: the robot's (by a turn), each slider's (by a placement). */
function pivotBodies(link: CaptureLink): { body: string; of: string; role: 'pusher' | 'slider' }[] {
  const robot = (link.scene.pusher ?? link.scene.gripper)?.rigidBody;
  return [
    ...(robot
      ? [{ body: robot, of: link.scene.pusher ? 'pusher' : 'gripper', role: 'pusher' as const }]
      : []),
    ...link.scene.sliders.flatMap((s) =>
      s.rigidBody ? [{ body: s.rigidBody, of: s.id, role: 'slider' as const }] : [],
    ),
  ];
}

/** The robot's body in the wizard's pivot stage (the pusher's, measured by turning the tool). */
export function robotPivot(state: CalibrationWizardState): PivotStageState['bodies'][number] | undefined {
  return state.pivots.bodies.find((x) => x.role === 'pusher');
}
