/**
 * A 2D canvas context that draws nothing and records everything: each call with the style in
 * force (fill, stroke, line width, dash, font), and each fill or stroke with the path it painted.
 * Text is measured at a fixed width per character, so label layouts are reproducible. Methods it
 * does not model (gradients, clipping, bezier curves: what a chart library may use) are recorded
 * and do nothing.
 */

export interface Op {
  name: string;
  args: unknown[];
  fillStyle: string;
  strokeStyle: string;
  lineWidth: number;
  dash: number[];
  font: string;
}

export interface PathPart {
  kind: 'moveTo' | 'lineTo' | 'arc' | 'rect';
  args: number[];
}

/** One fill or stroke of a path, with the style it was painted in. */
export interface Painted {
  op: 'fill' | 'stroke';
  path: PathPart[];
  style: string;
  lineWidth: number;
  dash: number[];
}

/** A Path2D stand-in (jsdom has none) that keeps its parts, so painting it can be recorded. */
export class RecordingPath2D {
  parts: PathPart[] = [];
  moveTo(x: number, y: number): void {
    this.parts.push({ kind: 'moveTo', args: [x, y] });
  }
  lineTo(x: number, y: number): void {
    this.parts.push({ kind: 'lineTo', args: [x, y] });
  }
  arc(...args: number[]): void {
    this.parts.push({ kind: 'arc', args });
  }
  rect(...args: number[]): void {
    this.parts.push({ kind: 'rect', args });
  }
  addPath(p: RecordingPath2D): void {
    this.parts.push(...p.parts);
  }
  closePath(): void {}
  bezierCurveTo(): void {}
  quadraticCurveTo(): void {}
  arcTo(): void {}
  ellipse(): void {}
}

export class RecordingContext {
  ops: Op[] = [];
  painted: Painted[] = [];
  fillStyle = '#000000';
  strokeStyle = '#000000';
  lineWidth = 1;
  font = '10px sans-serif';
  textAlign = 'start';
  textBaseline = 'alphabetic';
  lineJoin = 'miter';
  lineCap = 'butt';
  globalAlpha = 1;
  globalCompositeOperation = 'source-over';
  /** The last setTransform (a, b, c, d, e, f), kept across frames. */
  transform: number[] = [1, 0, 0, 1, 0, 0];
  private dash: number[] = [];
  private path: PathPart[] = [];
  private stack: {
    fillStyle: string;
    strokeStyle: string;
    lineWidth: number;
    dash: number[];
    font: string;
  }[] = [];

  /**
   * `clearStartsFrame`: a clearRect forgets what was recorded before it, so the recording is the
   * last frame of a view that clears itself before each redraw (the table view does).
   */
  constructor(
    readonly canvas: { width: number; height: number } = { width: 300, height: 150 },
    private readonly options: { charWidth?: number; clearStartsFrame?: boolean } = {},
  ) {}

  private record(name: string, args: unknown[]): void {
    this.ops.push({
      name,
      args,
      fillStyle: this.fillStyle,
      strokeStyle: this.strokeStyle,
      lineWidth: this.lineWidth,
      dash: [...this.dash],
      font: this.font,
    });
  }

  setLineDash(dash: number[]): void {
    this.dash = [...dash];
    this.record('setLineDash', [dash]);
  }
  getLineDash(): number[] {
    return [...this.dash];
  }
  beginPath(): void {
    this.path = [];
    this.record('beginPath', []);
  }
  closePath(): void {
    this.record('closePath', []);
  }
  moveTo(x: number, y: number): void {
    this.path.push({ kind: 'moveTo', args: [x, y] });
    this.record('moveTo', [x, y]);
  }
  lineTo(x: number, y: number): void {
    this.path.push({ kind: 'lineTo', args: [x, y] });
    this.record('lineTo', [x, y]);
  }
  arc(...args: number[]): void {
    this.path.push({ kind: 'arc', args });
    this.record('arc', args);
  }
  rect(...args: number[]): void {
    this.path.push({ kind: 'rect', args });
    this.record('rect', args);
  }
  fill(path?: unknown): void {
    this.paint('fill', path);
  }
  stroke(path?: unknown): void {
    this.paint('stroke', path);
  }
  private paint(op: 'fill' | 'stroke', path: unknown): void {
    const parts = path instanceof RecordingPath2D ? path.parts : this.path;
    this.painted.push({
      op,
      path: [...parts],
      style: op === 'fill' ? this.fillStyle : this.strokeStyle,
      lineWidth: this.lineWidth,
      dash: [...this.dash],
    });
    this.record(op, path === undefined ? [] : [path]);
  }
  fillRect(...args: number[]): void {
    this.record('fillRect', args);
  }
  strokeRect(...args: number[]): void {
    this.record('strokeRect', args);
  }
  clearRect(...args: number[]): void {
    if (this.options.clearStartsFrame) this.reset();
    this.record('clearRect', args);
  }
  fillText(text: string, x: number, y: number): void {
    this.record('fillText', [text, x, y]);
  }
  strokeText(text: string, x: number, y: number): void {
    this.record('strokeText', [text, x, y]);
  }
  measureText(text: string): {
    width: number;
    actualBoundingBoxAscent: number;
    actualBoundingBoxDescent: number;
  } {
    return {
      width: text.length * (this.options.charWidth ?? 7),
      actualBoundingBoxAscent: 9,
      actualBoundingBoxDescent: 3,
    };
  }
  save(): void {
    this.stack.push({
      fillStyle: this.fillStyle,
      strokeStyle: this.strokeStyle,
      lineWidth: this.lineWidth,
      dash: [...this.dash],
      font: this.font,
    });
    this.record('save', []);
  }
  restore(): void {
    const s = this.stack.pop();
    if (s) {
      this.fillStyle = s.fillStyle;
      this.strokeStyle = s.strokeStyle;
      this.lineWidth = s.lineWidth;
      this.dash = s.dash;
      this.font = s.font;
    }
    this.record('restore', []);
  }
  translate(x: number, y: number): void {
    this.record('translate', [x, y]);
  }
  rotate(a: number): void {
    this.record('rotate', [a]);
  }
  scale(x: number, y: number): void {
    this.record('scale', [x, y]);
  }
  setTransform(...args: number[]): void {
    this.transform = args;
    this.record('setTransform', args);
  }
  clip(): void {
    this.record('clip', []);
  }
  bezierCurveTo(): void {}
  quadraticCurveTo(): void {}
  arcTo(): void {}
  ellipse(): void {}
  createLinearGradient(): { addColorStop(): void } {
    return { addColorStop: () => {} };
  }
  drawImage(): void {}

  /** The calls of one kind, in order. */
  calls(name: string): Op[] {
    return this.ops.filter((o) => o.name === name);
  }
  /** The text drawn (fillText), with where. */
  texts(): { text: string; x: number; y: number; colour: string }[] {
    return this.calls('fillText').map((o) => {
      const [text, x, y] = o.args as [string, number, number];
      return { text, x, y, colour: o.fillStyle };
    });
  }
  /** The strokes of straight segments (moveTo/lineTo only) painted in a colour, as their points. */
  polylines(colour: string): { points: [number, number][]; lineWidth: number; dash: number[] }[] {
    return this.painted
      .filter((p) => p.op === 'stroke' && p.style === colour)
      .filter((p) => p.path.every((q) => q.kind === 'moveTo' || q.kind === 'lineTo'))
      .map((p) => ({
        points: p.path
          .filter((q) => q.kind === 'moveTo' || q.kind === 'lineTo')
          .map((q) => [q.args[0]!, q.args[1]!] as [number, number]),
        lineWidth: p.lineWidth,
        dash: p.dash,
      }))
      .filter((p) => p.points.length > 0);
  }
  /** Discs filled in a colour: [x, y, r] of each arc of each fill. */
  discs(colour: string): [number, number, number][] {
    return this.painted
      .filter((p) => p.op === 'fill' && p.style === colour)
      .flatMap((p) =>
        p.path
          .filter((q) => q.kind === 'arc')
          .map((q) => [q.args[0]!, q.args[1]!, q.args[2]!] as [number, number, number]),
      );
  }
  /** Forgets what was recorded (the next frame). */
  reset(): void {
    this.ops = [];
    this.painted = [];
  }
}

/** The context as the code under test types it. */
export const as2d = (c: RecordingContext): CanvasRenderingContext2D =>
  c as unknown as CanvasRenderingContext2D;
