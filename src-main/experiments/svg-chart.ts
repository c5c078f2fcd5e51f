/**
 * Minimal SVG charts: bars with error bars (one bar per model), enough for the ISRR Fig. 7 /
 * WAFR Fig. 5 style plots: success rate with its Wilson interval, task time with its 95% CI;
 * and lines over a categorical x axis (planning time against worker count; success rate against
 * the noise level, with interval bars). Each chart is sized to its text (title, model names, tick labels), since an SVG viewer clips
 * whatever lies outside the viewport instead of making room for it.
 */
export interface Bar {
  label: string;
  value: number;
  low: number;
  high: number;
}

const FONT = 12;
const TITLE_FONT = 14;
/**
 * Average advance of a sans-serif glyph, in em, rounded up from Helvetica/DejaVu's ~0.55 so the
 * estimate errs wide: SVG text cannot be measured without a renderer (the e2e test measures it).
 */
const GLYPH_EM = 0.62;
const MIN_SLOT = 90;
const BAR_WIDTH = 50;
const MIN_PLOT_HEIGHT = 220;
const TOP = 40;
const RIGHT = 20;
const Y_LABEL_X = 16;
const TICK_GAP = 6;

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The svg element, white background, title and rotated y label every chart starts with. */
function chartOpening(width: number, height: number, plotH: number, title: string, yLabel: string): string[] {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="${FONT}">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text class="title" x="${width / 2}" y="20" text-anchor="middle" font-size="${TITLE_FONT}">${esc(title)}</text>`,
    `<text class="axis-label" transform="translate(${Y_LABEL_X} ${TOP + plotH / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`,
  ];
}

export const textWidth = (s: string, fontSize: number): number => Math.ceil(s.length * fontSize * GLYPH_EM);

export function barChartSvg(o: { title: string; yLabel: string; bars: Bar[]; yMax?: number }): string {
  const ticks = niceTicks(o.yMax ?? dataMax(o.bars));
  const yMax = ticks.values[ticks.values.length - 1]!;
  const tickLabels = ticks.values.map((v) => v.toFixed(ticks.decimals));
  // The rotated y label takes one line height left of the tick labels.
  const left = Y_LABEL_X + FONT + Math.max(...tickLabels.map((t) => textWidth(t, FONT))) + TICK_GAP;
  const slots = Math.max(1, o.bars.length);
  const labelSlot = Math.max(MIN_SLOT, ...o.bars.map((b) => textWidth(b.label, FONT) + 16));
  // A title wider than the bars widens the slots, so the plot fills the width the title needs.
  const titleWidth = textWidth(o.title, TITLE_FONT) + 2 * RIGHT;
  const titleSlot = (titleWidth - left - RIGHT) / slots;
  const slot = Math.ceil(Math.max(labelSlot, titleSlot));
  const width = left + slot * slots + RIGHT;
  const plotH = Math.max(MIN_PLOT_HEIGHT, textWidth(o.yLabel, FONT) + 20);
  const bottom = TOP + plotH;
  const height = bottom + 40;
  const y = (v: number): number => bottom - (Math.max(0, Math.min(v, yMax)) / yMax) * plotH;
  const parts = chartOpening(width, height, plotH, o.title, o.yLabel);
  ticks.values.forEach((v, i) => {
    parts.push(
      `<line x1="${left}" x2="${width - RIGHT}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`,
      `<text class="tick" x="${left - TICK_GAP}" y="${y(v) + 4}" text-anchor="end">${tickLabels[i]}</text>`,
    );
  });
  o.bars.forEach((b, i) => {
    const cx = left + slot / 2 + slot * i;
    parts.push(...barParts(b, cx, y, bottom));
    parts.push(
      `<text class="bar-label" x="${cx}" y="${bottom + 18}" text-anchor="middle">${esc(b.label)}</text>`,
    );
  });
  parts.push(
    `<line x1="${left}" x2="${width - RIGHT}" y1="${bottom}" y2="${bottom}" stroke="black"/>`,
    '</svg>',
  );
  return `${parts.join('\n')}\n`;
}

/** The bar with its error bar, or "n/a" where there is no value (no successful run to time). */
function barParts(b: Bar, cx: number, y: (v: number) => number, bottom: number): string[] {
  if (!Number.isFinite(b.value)) return [`<text x="${cx}" y="${bottom - 6}" text-anchor="middle">n/a</text>`];
  const half = BAR_WIDTH / 2;
  const out = [
    `<rect x="${cx - half}" y="${y(b.value)}" width="${BAR_WIDTH}" height="${bottom - y(b.value)}" fill="#4a7fb5"/>`,
  ];
  if (Number.isFinite(b.low) && Number.isFinite(b.high)) {
    out.push(
      `<line x1="${cx}" x2="${cx}" y1="${y(b.low)}" y2="${y(b.high)}" stroke="black"/>`,
      `<line x1="${cx - 8}" x2="${cx + 8}" y1="${y(b.low)}" y2="${y(b.low)}" stroke="black"/>`,
      `<line x1="${cx - 8}" x2="${cx + 8}" y1="${y(b.high)}" y2="${y(b.high)}" stroke="black"/>`,
    );
  }
  return out;
}

/** The largest value to show; 1 when nothing is finite and positive, so an empty chart keeps sane ticks. */
function dataMax(bars: readonly Bar[]): number {
  const finite = bars.flatMap((b) => [b.value, b.high]).filter((v) => Number.isFinite(v) && v > 0);
  return finite.length ? Math.max(...finite) : 1;
}

/**
 * Axis ticks from 0 up to at least `max`, about four steps of 1, 2, 2.5 or 5 times a power of ten,
 * with as many decimals as the step needs: round numbers, no exponent, no floating-point noise.
 */
export function niceTicks(max: number, steps = 4): { values: number[]; decimals: number } {
  const top = max > 0 && Number.isFinite(max) ? max : 1;
  const target = top / steps;
  const exponent = Math.floor(Math.log10(target));
  const mantissa = [1, 2, 2.5, 5, 10].find((m) => m * 10 ** exponent >= target * (1 - 1e-9))!;
  const step = mantissa * 10 ** exponent;
  // 1e-9 keeps a maximum a rounding error above a tick from adding a tick of its own.
  const count = Math.max(1, Math.ceil(top / step - 1e-9));
  const decimals = Math.max(0, -exponent + (mantissa === 2.5 ? 1 : 0) - (mantissa === 10 ? 1 : 0));
  const values = Array.from({ length: count + 1 }, (_, i) => Number((i * step).toFixed(decimals)));
  return { values, decimals };
}

export interface Series {
  label: string;
  /** One value per x category; NaN leaves a gap. */
  values: number[];
  /** The interval of each value (e.g. a 95% Wilson interval), drawn as an error bar where both ends are finite. */
  low?: number[];
  high?: number[];
}

/** Horizontal spread between the series' points at one x, so their error bars do not cover each other. */
const DODGE = 8;

const SERIES_COLOURS = ['#4a7fb5', '#d9822b', '#3d9970', '#b03a48', '#7a5195', '#666666'];
const LEGEND_ROW = 16;

/**
 * Lines over categorical x values (e.g. worker counts), one per series, with a legend: for
 * quantities people compare across a parameter, such as planning time per step against workers.
 * An optional horizontal reference line (e.g. the control duration) is drawn dashed.
 */
export function lineChartSvg(o: {
  title: string;
  xLabel: string;
  yLabel: string;
  x: string[];
  series: Series[];
  reference?: { value: number; label: string };
  /** The top of the y axis (e.g. 1 for a rate); by default the largest value or interval end. */
  yMax?: number;
}): string {
  const all = o.series
    .flatMap((s) => [...s.values, ...(s.high ?? [])])
    .concat(o.reference ? [o.reference.value] : []);
  const finite = all.filter((v) => Number.isFinite(v) && v > 0);
  const ticks = niceTicks(o.yMax ?? (finite.length ? Math.max(...finite) : 1));
  const yMax = ticks.values[ticks.values.length - 1]!;
  const tickLabels = ticks.values.map((v) => v.toFixed(ticks.decimals));
  const left = Y_LABEL_X + FONT + Math.max(...tickLabels.map((t) => textWidth(t, FONT))) + TICK_GAP;
  const legendWidth = Math.max(...o.series.map((s) => textWidth(s.label, FONT))) + 40;
  const slot = Math.max(60, ...o.x.map((x) => textWidth(x, FONT) + 16));
  const plotW = Math.max(slot * o.x.length, textWidth(o.title, TITLE_FONT) - legendWidth);
  const width = left + plotW + legendWidth + RIGHT;
  const plotH = Math.max(MIN_PLOT_HEIGHT, o.series.length * LEGEND_ROW + 20, textWidth(o.yLabel, FONT) + 20);
  const bottom = TOP + plotH;
  const height = bottom + 50;
  const step = plotW / o.x.length;
  const px = (i: number): number => left + step / 2 + step * i;
  const py = (v: number): number => bottom - (Math.max(0, Math.min(v, yMax)) / yMax) * plotH;
  const parts = [
    ...chartOpening(width, height, plotH, o.title, o.yLabel),
    `<text class="axis-label" x="${left + plotW / 2}" y="${bottom + 40}" text-anchor="middle">${esc(o.xLabel)}</text>`,
  ];
  ticks.values.forEach((v, i) => {
    parts.push(
      `<line x1="${left}" x2="${left + plotW}" y1="${py(v)}" y2="${py(v)}" stroke="#ddd"/>`,
      `<text class="tick" x="${left - TICK_GAP}" y="${py(v) + 4}" text-anchor="end">${tickLabels[i]}</text>`,
    );
  });
  o.x.forEach((x, i) => {
    parts.push(`<text class="tick" x="${px(i)}" y="${bottom + 18}" text-anchor="middle">${esc(x)}</text>`);
  });
  if (o.reference) {
    const y = py(o.reference.value);
    parts.push(
      `<line x1="${left}" x2="${left + plotW}" y1="${y}" y2="${y}" stroke="black" stroke-dasharray="5 4"/>`,
      `<text x="${left + plotW - 4}" y="${y - 5}" text-anchor="end">${esc(o.reference.label)}</text>`,
    );
  }
  const intervals = o.series.some((s) => s.low && s.high);
  o.series.forEach((s, k) => {
    const colour = SERIES_COLOURS[k % SERIES_COLOURS.length]!;
    const dx = intervals ? (k - (o.series.length - 1) / 2) * DODGE : 0;
    // Break the line at gaps, so a missing measurement is never drawn as a straight interpolation.
    let path = '';
    let pen = false;
    s.values.forEach((v, i) => {
      if (!Number.isFinite(v)) {
        pen = false;
        return;
      }
      const x = (px(i) + dx).toFixed(1);
      path += `${pen ? 'L' : 'M'}${x} ${py(v).toFixed(1)} `;
      pen = true;
      parts.push(`<circle cx="${x}" cy="${py(v).toFixed(1)}" r="3" fill="${colour}"/>`);
      const [lo, hi] = [s.low?.[i], s.high?.[i]];
      if (lo !== undefined && hi !== undefined && Number.isFinite(lo) && Number.isFinite(hi))
        parts.push(
          `<path class="error-bar" d="M${x} ${py(lo).toFixed(1)} V${py(hi).toFixed(1)} M${(px(i) + dx - 4).toFixed(1)} ${py(lo).toFixed(1)} h8 M${(px(i) + dx - 4).toFixed(1)} ${py(hi).toFixed(1)} h8" stroke="${colour}" fill="none"/>`,
        );
    });
    if (path) parts.push(`<path d="${path.trim()}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    const ly = TOP + 10 + k * LEGEND_ROW;
    const lx = left + plotW + 12;
    parts.push(
      `<line x1="${lx}" x2="${lx + 18}" y1="${ly}" y2="${ly}" stroke="${colour}" stroke-width="2"/>`,
      `<text class="legend" x="${lx + 24}" y="${ly + 4}">${esc(s.label)}</text>`,
    );
  });
  parts.push(
    `<line x1="${left}" x2="${left + plotW}" y1="${bottom}" y2="${bottom}" stroke="black"/>`,
    '</svg>',
  );
  return `${parts.join('\n')}\n`;
}
