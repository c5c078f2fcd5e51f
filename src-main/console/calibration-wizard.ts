/**
 * The calibration wizard behind the Setup view: two stages, motion capture -> table and table ->
 * robot base. In each the operator places the pusher at known table points (by hand, on the
 * pendant, or with the wizard's jog: short slow moves through the control program, robot/jog.ts)
 * and the wizard records the live measurement there, fits the stage's calibration
 * (src-main/calibration), and saves it into the connected lab's setup once its residual passes the
 * same check as the pre-flight checklist's. Pairs belong to one lab: when the console switches
 * labs they are dropped.
 */
import path from 'node:path';
import type { CalibrationStageId, CalibrationWizardState, JogCheck } from '#contract/console-api';
import { jogBodies, judgeJogPath, toolReach } from '#contract/jog-path';
import { wallSeconds } from '#contract/time';
import {
  fitCalibration2d,
  fitCalibration3d,
  saveCalibration,
  tablePoint,
  type Calibration,
} from '../calibration/mocap-table';
import { checkResidual } from '../calibration/residual';
import { fitRobotBase } from '../calibration/robot-base';
import { norm, sub, type Vec3 } from '../common/rotation';
import type { Setup } from '../calibration/setup-file';
import { calibrated } from '../calibration/setup-template';
import { captureMocapPoint, captureRobotPoint, type CaptureLink } from './calibration-capture';
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
}

export const labCaptures: CaptureSource = {
  mocap: (link) => captureMocapPoint(link),
  robot: async (link) => captureRobotPoint(link),
};

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
  private pairsFrom: LabConnection | null = null;
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
    };
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
    apply: (s) => calibrated({ ...s, mocap: calibration }, 'mocap'),
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
