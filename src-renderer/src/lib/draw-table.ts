/**
 * Draws the top-down view: table, goal region, obstacles, sliders, pusher, the executed pusher
 * path, the chosen plan and the predicted trajectory of each Parareal iteration. The robot is its
 * tool's parts (contract/end-effector: the pusher's disc, a gripper's palm and both fingers at its
 * yaw and opening); a grasp goal marks the target object instead of a goal region. Iterations
 * differ by dash pattern and label as well as colour, so they read without colour. A what-if
 * re-plan is drawn beside the plan it is compared with: purple, dashed, round markers. Labels
 * are drawn last, on a halo, and placed clear of each other and of the pusher and the sliders
 * (lib/label-layout.ts).
 */
import type { LabSetupView } from '#contract/lab-view';
import { type PlannerStep } from '#contract/planner-events';
import type { EndEffector } from '#contract/end-effector/end-effector';
import { endEffectorOf } from '#contract/end-effector/registry';
import { boundingRadius, type Scene, type Shape } from '#contract/scene';
import { partCorners } from '#contract/gripper-geometry';
import { circleBox, placeLabels, type Box, type LabelRequest } from './label-layout';
import {
  describeLab,
  drawMocapFrame,
  drawRobotBase,
  drawScaleBar,
  drawTableAxes,
  drawWorkspace,
  labBounds,
} from './lab-overlay';
import { fitBounds, toCanvas, type ViewTransform } from './table-view';

export interface LiveOverlay {
  step: PlannerStep | null;
  /** Measured state (state layout of contract/state.ts); overrides the scene's initial poses. */
  state: number[] | null;
  executedPath: [number, number][];
  showRollouts: boolean;
  /** A what-if re-plan of `step`, drawn beside it; null when there is none. */
  whatIf?: PlannerStep | null;
  /** The lab's setup (workspace, robot base, motion-capture frame); null when no lab is connected. */
  setup?: LabSetupView | null;
}

/** The look of the two plans of a what-if comparison (the legend in LiveCanvas names them). */
export const PLAN_STYLE = { colour: '#e65100', dash: [] as number[] };
export const WHAT_IF_STYLE = { colour: '#6a1b9a', dash: [12, 6] };

const iterationColours = ['#9e9e9e', '#42a5f5', '#ab47bc', '#26a69a', '#ffa726', '#ef5350'];
const iterationDashes = [[2, 4], [8, 4], [12, 3, 2, 3], [16, 4], [4, 2], []];

export function drawTable(
  ctx: CanvasRenderingContext2D,
  width: number,
  height: number,
  scene: Scene,
  overlay: LiveOverlay,
): ViewTransform {
  const setup = overlay.setup ?? null;
  const t = fitBounds(labBounds(scene, setup), width, height);
  const labels: LabelRequest[] = [];
  const avoid: Box[] = [];
  // The lab's marks are named after the scene's: theirs come first in the label layout.
  const labLabels: LabelRequest[] = [];
  ctx.clearRect(0, 0, width, height);
  ctx.lineJoin = 'round';

  drawTableTop(ctx, t, scene.table);

  // The lab under the objects: workspace, table axes, motion-capture frame; the robot base.
  if (setup) drawWorkspace(ctx, t, scene, setup, labLabels);
  drawTableAxes(ctx, t, labLabels);
  if (setup) {
    drawMocapFrame(ctx, t, setup.mocapFrame, labLabels);
    drawRobotBase(ctx, t, setup.robotBase, labLabels, avoid);
  }

  // Goal region: dashed ring and a label. A grasp goal has no region: its target is marked.
  const [gx, gy] = toCanvas(t, scene.goal.center.x, scene.goal.center.y);
  const sceneLabels: LabelRequest[] = [];
  if (!scene.goal.grasp) {
    ctx.setLineDash([6, 4]);
    ctx.strokeStyle = '#2e7d32';
    ctx.fillStyle = 'rgba(46, 125, 50, 0.15)';
    ctx.beginPath();
    ctx.arc(gx, gy, scene.goal.radius * t.scale, 0, 2 * Math.PI);
    ctx.fill();
    ctx.stroke();
    ctx.setLineDash([]);
    sceneLabels.push({
      text: 'GOAL',
      anchor: [gx, gy],
      offset: [0, -scene.goal.radius * t.scale - 10],
      colour: '#1b5e20',
    });
  }

  for (const o of scene.obstacles) {
    drawShape(ctx, t, o.shape, o.pose, '#424242', '#212121');
    sceneLabels.push({ text: o.id, anchor: toCanvas(t, o.pose.x, o.pose.y), offset: [0, 0], colour: '#fff' });
  }

  const sliderCount = scene.sliders.length;
  const tool = endEffectorOf(scene);
  const dofs = tool.slots.positions.length;
  const state = overlay.state && overlay.state.length >= dofs + 3 * sliderCount ? overlay.state : null;
  scene.sliders.forEach((s, i) => {
    const pose = state ? poseAt(state, i, dofs) : s.pose;
    drawShape(ctx, t, s.shape, pose, '#1565c0', '#0d47a1');
    const [px, py] = toCanvas(t, pose.x, pose.y);
    const target = scene.goal.grasp === true && s.id === scene.goal.slider;
    if (target) drawTargetMark(ctx, t, s.shape, pose);
    // Heading tick so rotation is visible on a cylinder too.
    const r =
      0.8 *
      (s.shape.kind === 'cylinder' ? s.shape.radius : Math.min(s.shape.sizeX, s.shape.sizeY) / 2) *
      t.scale;
    ctx.strokeStyle = '#fff';
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(px, py);
    ctx.lineTo(px + r * Math.cos(pose.theta), py - r * Math.sin(pose.theta));
    ctx.stroke();
    avoid.push(circleBox(px, py, r / 0.8));
    sceneLabels.push({
      text: target ? `${s.id} (TARGET)` : s.id,
      anchor: [px, py],
      offset: [0, r / 0.8 + 10],
      colour: target ? TARGET_COLOUR : '#0d47a1',
    });
  });

  drawPath(ctx, t, overlay.executedPath, '#000', 2, []);

  const pathLabels: LabelRequest[] = [];
  if (overlay.step) drawStep(ctx, t, overlay.step, overlay.showRollouts, pathLabels);
  if (overlay.whatIf) drawWhatIf(ctx, t, overlay.whatIf, pathLabels);

  labels.push(
    drawTool(ctx, t, tool, state ?? tool.start, avoid),
    ...sceneLabels,
    ...pathLabels,
    ...labLabels,
  );
  avoid.push(drawScaleBar(ctx, t, height));
  drawLabels(ctx, labels, avoid, { x: 0, y: 0, w: width, h: height });
  return t;
}

const PUSHER_FILL = '#ef6c00';
const ROBOT_STROKE = '#3e2723';
/** The gripper's fingers: darker than its palm, so the opening reads at a glance. */
export const FINGER_FILL = '#bf360c';
/** The target of a grasp goal: its ring and label. */
export const TARGET_COLOUR = '#c62828';

/**
 * The robot: its tool's parts at configuration q (a measured state's first entries, or the
 * scene's start), a disc as a circle and a rectangle as its polygon, the first part in the tool's
 * colour and the rest (a gripper's fingers) darker, so the opening reads at a glance. Returns the
 * tool's label, above it.
 */
function drawTool(
  ctx: CanvasRenderingContext2D,
  t: ViewTransform,
  tool: EndEffector,
  q: ArrayLike<number>,
  avoid: Box[],
): LabelRequest {
  const [cx, cy] = toCanvas(t, q[0]!, q[1]!);
  const boxes: Box[] = [];
  const points: [number, number][] = [];
  // The label's height above the reference point: the top of the highest part.
  let top = Infinity;
  tool.parts(q).forEach((part, i) => {
    ctx.fillStyle = i === 0 ? PUSHER_FILL : FINGER_FILL;
    ctx.strokeStyle = ROBOT_STROKE;
    ctx.lineWidth = 2;
    ctx.beginPath();
    const f = part.footprint;
    if (f.kind === 'disc') {
      const [ux, uy] = toCanvas(t, part.x, part.y);
      const radius = Math.max(3, f.radius * t.scale);
      ctx.arc(ux, uy, radius, 0, 2 * Math.PI);
      boxes.push(circleBox(ux, uy, radius));
      top = Math.min(top, uy - cy - radius);
    } else {
      partCorners({ x: part.x, y: part.y, theta: part.theta, hx: f.hx, hy: f.hy }).forEach(([x, y], k) => {
        const [px, py] = toCanvas(t, x, y);
        points.push([px, py]);
        if (k === 0) ctx.moveTo(px, py);
        else ctx.lineTo(px, py);
      });
      ctx.closePath();
    }
    ctx.fill();
    ctx.stroke();
  });
  if (points.length > 0) {
    const xs = points.map((p) => p[0]);
    const ys = points.map((p) => p[1]);
    const box = {
      x: Math.min(...xs),
      y: Math.min(...ys),
      w: Math.max(...xs) - Math.min(...xs),
      h: Math.max(...ys) - Math.min(...ys),
    };
    boxes.push(box);
    top = Math.min(top, box.y - cy);
  }
  avoid.push(...boxes);
  return { text: tool.title, anchor: [cx, cy], offset: [0, top - 10], colour: ROBOT_STROKE };
}

/** A grasp goal's target: a solid ring around the object, clear of its outline. */
function drawTargetMark(
  ctx: CanvasRenderingContext2D,
  t: ViewTransform,
  shape: Shape,
  pose: { x: number; y: number },
): void {
  const reach = boundingRadius(shape);
  const [px, py] = toCanvas(t, pose.x, pose.y);
  ctx.strokeStyle = TARGET_COLOUR;
  ctx.lineWidth = 3;
  ctx.setLineDash([]);
  ctx.beginPath();
  ctx.arc(px, py, reach * t.scale + 6, 0, 2 * Math.PI);
  ctx.stroke();
}

/** The table top: its outline where it has one, else its size rectangle. */
function drawTableTop(ctx: CanvasRenderingContext2D, t: ViewTransform, table: Scene['table']): void {
  ctx.fillStyle = '#d7ccc8';
  ctx.strokeStyle = '#5d4037';
  ctx.lineWidth = 2;
  if (!table.outline) {
    const [tx, ty] = toCanvas(t, -table.size.x / 2, table.size.y / 2);
    ctx.fillRect(tx, ty, table.size.x * t.scale, table.size.y * t.scale);
    ctx.strokeRect(tx, ty, table.size.x * t.scale, table.size.y * t.scale);
    return;
  }
  ctx.beginPath();
  table.outline.forEach((p, i) => {
    const [px, py] = toCanvas(t, p.x, p.y);
    if (i === 0) ctx.moveTo(px, py);
    else ctx.lineTo(px, py);
  });
  ctx.closePath();
  ctx.fill();
  ctx.stroke();
}

function drawStep(
  ctx: CanvasRenderingContext2D,
  t: ViewTransform,
  step: PlannerStep,
  showRollouts: boolean,
  labels: LabelRequest[],
): void {
  const n = step.sliderIds.length;
  const sliderPosOf = sliderPositions(step);
  if (showRollouts && step.rollouts) {
    for (const rollout of step.rollouts) drawPath(ctx, t, rollout.map(pusherOf), 'rgba(0,0,0,0.15)', 1, []);
  }
  for (const p of step.predictions) {
    const colour = iterationColours[Math.min(p.iteration, iterationColours.length - 1)]!;
    const dash = iterationDashes[Math.min(p.iteration, iterationDashes.length - 1)]!;
    for (let i = 0; i < n; i++)
      drawPath(
        ctx,
        t,
        [sliderPosOf(step.start, i), ...p.states.map((s) => sliderPosOf(s, i))],
        colour,
        2,
        dash,
      );
    const last = p.states[p.states.length - 1];
    if (last) {
      labels.push({
        text: `k=${p.iteration}`,
        anchor: toCanvas(t, ...sliderPosOf(last, 0)),
        offset: [20, -10],
        colour,
      });
    }
  }
  // The chosen plan: the pusher path the controls would drive, thick and solid, square markers.
  const path = planPath(step);
  drawPath(ctx, t, path, PLAN_STYLE.colour, 4, PLAN_STYLE.dash);
  for (const [x, y] of path.slice(1)) {
    const [px, py] = toCanvas(t, x, y);
    ctx.fillStyle = PLAN_STYLE.colour;
    ctx.fillRect(px - 3, py - 3, 6, 6);
  }
}

/** The re-planned pusher path and the slider path it predicts (its last Parareal iteration). */
function drawWhatIf(
  ctx: CanvasRenderingContext2D,
  t: ViewTransform,
  step: PlannerStep,
  labels: LabelRequest[],
): void {
  const last = step.predictions[step.predictions.length - 1];
  const sliderPosOf = sliderPositions(step);
  if (last)
    for (let i = 0; i < step.sliderIds.length; i++)
      drawPath(
        ctx,
        t,
        [sliderPosOf(step.start, i), ...last.states.map((s) => sliderPosOf(s, i))],
        WHAT_IF_STYLE.colour,
        2,
        [4, 4],
      );
  const path = planPath(step);
  drawPath(ctx, t, path, WHAT_IF_STYLE.colour, 4, WHAT_IF_STYLE.dash);
  for (const [x, y] of path.slice(1)) {
    const [px, py] = toCanvas(t, x, y);
    ctx.fillStyle = WHAT_IF_STYLE.colour;
    ctx.beginPath();
    ctx.arc(px, py, 4, 0, 2 * Math.PI);
    ctx.fill();
  }
  const end = path[path.length - 1]!;
  labels.push({
    text: 'what-if',
    anchor: toCanvas(t, end[0], end[1]),
    offset: [0, 18],
    colour: WHAT_IF_STYLE.colour,
  });
}

/** The pusher path a plan's controls drive, from its start state, one point per control. */
function planPath(step: PlannerStep): [number, number][] {
  const path: [number, number][] = [pusherOf(step.start)];
  for (const u of step.plan) {
    const [x, y] = path[path.length - 1]!;
    path.push([x + u[0]! * step.controlDuration, y + u[1]! * step.controlDuration]);
  }
  return path;
}

function pusherOf(state: number[]): [number, number] {
  return [state[0]!, state[1]!];
}

/**
 * Slider i's position in a step's states: after the robot's DOFs, 2 for a pusher (4 + 6n entries)
 * and 4 for a gripper (8 + 6n), told apart by the length.
 */
function sliderPositions(step: PlannerStep): (state: number[], i: number) => [number, number] {
  const dofs = (step.start.length - 6 * step.sliderIds.length) / 2;
  return (state, i) => [state[dofs + 3 * i]!, state[dofs + 1 + 3 * i]!];
}

function poseAt(state: number[], i: number, dofs: number) {
  return { x: state[dofs + 3 * i]!, y: state[dofs + 1 + 3 * i]!, theta: state[dofs + 2 + 3 * i]! };
}

function drawShape(
  ctx: CanvasRenderingContext2D,
  t: ViewTransform,
  shape: Shape,
  pose: { x: number; y: number; theta: number },
  fill: string,
  stroke: string,
): void {
  const [px, py] = toCanvas(t, pose.x, pose.y);
  ctx.fillStyle = fill;
  ctx.strokeStyle = stroke;
  ctx.lineWidth = 2;
  ctx.beginPath();
  if (shape.kind === 'cylinder') {
    ctx.arc(px, py, shape.radius * t.scale, 0, 2 * Math.PI);
  } else {
    ctx.save();
    ctx.translate(px, py);
    ctx.rotate(-pose.theta);
    ctx.rect(
      (-shape.sizeX / 2) * t.scale,
      (-shape.sizeY / 2) * t.scale,
      shape.sizeX * t.scale,
      shape.sizeY * t.scale,
    );
    ctx.restore();
  }
  ctx.fill();
  ctx.stroke();
}

function drawPath(
  ctx: CanvasRenderingContext2D,
  t: ViewTransform,
  points: [number, number][],
  colour: string,
  width: number,
  dash: number[],
): void {
  if (points.length < 2) return;
  ctx.strokeStyle = colour;
  ctx.lineWidth = width;
  ctx.setLineDash(dash);
  ctx.beginPath();
  points.forEach(([x, y], i) => {
    const [px, py] = toCanvas(t, x, y);
    if (i === 0) ctx.moveTo(px, py);
    else ctx.lineTo(px, py);
  });
  ctx.stroke();
  ctx.setLineDash([]);
}

const LABEL_FONT = '600 12px system-ui, sans-serif';

/** Places the labels clear of each other and of `avoid`, then draws each on a halo. */
function drawLabels(
  ctx: CanvasRenderingContext2D,
  requests: LabelRequest[],
  avoid: Box[],
  bounds: Box,
): void {
  ctx.font = LABEL_FONT;
  const placed = placeLabels(requests, (text) => ctx.measureText(text).width, avoid, bounds);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.lineJoin = 'round';
  for (const l of placed) {
    if (l.leader) {
      // A leader line from the label back to what it names.
      const [bx, by] = nearestOnBox(l.box, l.anchor);
      ctx.strokeStyle = l.colour;
      ctx.lineWidth = 1;
      ctx.setLineDash([]);
      ctx.beginPath();
      ctx.moveTo(l.anchor[0], l.anchor[1]);
      ctx.lineTo(bx, by);
      ctx.stroke();
    }
    const light = l.colour === '#fff';
    ctx.strokeStyle = light ? 'rgba(0, 0, 0, 0.55)' : 'rgba(255, 255, 255, 0.85)';
    ctx.lineWidth = 3;
    ctx.strokeText(l.text, l.at[0], l.at[1]);
    ctx.fillStyle = l.colour;
    ctx.fillText(l.text, l.at[0], l.at[1]);
  }
  ctx.textBaseline = 'alphabetic';
}

function nearestOnBox(b: Box, [x, y]: [number, number]): [number, number] {
  return [Math.min(b.x + b.w, Math.max(b.x, x)), Math.min(b.y + b.h, Math.max(b.y, y))];
}

/** The same content in words, for screen readers and for tests that cannot see pixels. */
export function describeView(
  scene: Scene | null,
  step: PlannerStep | null,
  whatIf: PlannerStep | null = null,
  setup: LabSetupView | null = null,
): string {
  if (!scene) return 'No scene loaded';
  const parts = [
    `Table ${Math.round(scene.table.size.x * 1000)} × ${Math.round(scene.table.size.y * 1000)} mm` +
      (scene.table.outline ? ` (outline of ${scene.table.outline.length} points)` : ''),
    `${scene.sliders.length} slider(s)`,
    `${scene.obstacles.length} obstacle(s)`,
    `goal for ${scene.goal.slider}`,
    ...describeLab(setup),
  ];
  if (step) {
    parts.push(
      `plan step ${step.step} with ${step.plan.length} action(s)`,
      `predictions for Parareal iteration(s) ${step.predictions.map((p) => p.iteration).join(', ')}`,
    );
  }
  if (whatIf) parts.push(`what-if plan for step ${whatIf.step} with ${whatIf.plan.length} action(s)`);
  return parts.join('; ');
}
