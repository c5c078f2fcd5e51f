/**
 * A minimal SVG bar chart with error bars (one bar per model), enough for the ISRR Fig. 7 /
 * WAFR Fig. 5 style plots: success rate with its Wilson interval, task time with its 95% CI.
 */
export interface Bar {
  label: string;
  value: number;
  low: number;
  high: number;
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function barChartSvg(o: { title: string; yLabel: string; bars: Bar[]; yMax?: number }): string {
  const width = 120 + 90 * Math.max(1, o.bars.length);
  const height = 320;
  const left = 70;
  const top = 40;
  const plotH = 220;
  const finiteHighs = o.bars.map((b) => b.high).filter(Number.isFinite);
  const yMax = o.yMax ?? niceCeil(Math.max(1e-9, ...finiteHighs));
  const y = (v: number): number => top + plotH - (Math.max(0, Math.min(v, yMax)) / yMax) * plotH;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14">${esc(o.title)}</text>`,
    `<text transform="translate(16 ${top + plotH / 2}) rotate(-90)" text-anchor="middle">${esc(o.yLabel)}</text>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const v = (yMax * i) / 4;
    parts.push(
      `<line x1="${left}" x2="${width - 20}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`,
      `<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end">${formatTick(v)}</text>`,
    );
  }
  o.bars.forEach((b, i) => {
    const cx = left + 45 + 90 * i;
    if (Number.isFinite(b.value)) {
      parts.push(
        `<rect x="${cx - 25}" y="${y(b.value)}" width="50" height="${top + plotH - y(b.value)}" fill="#4a7fb5"/>`,
      );
      parts.push(
        `<line x1="${cx}" x2="${cx}" y1="${y(b.low)}" y2="${y(b.high)}" stroke="black"/>`,
        `<line x1="${cx - 8}" x2="${cx + 8}" y1="${y(b.low)}" y2="${y(b.low)}" stroke="black"/>`,
        `<line x1="${cx - 8}" x2="${cx + 8}" y1="${y(b.high)}" y2="${y(b.high)}" stroke="black"/>`,
      );
    } else {
      parts.push(`<text x="${cx}" y="${top + plotH - 6}" text-anchor="middle">n/a</text>`);
    }
    parts.push(`<text x="${cx}" y="${top + plotH + 18}" text-anchor="middle">${esc(b.label)}</text>`);
  });
  parts.push(
    `<line x1="${left}" x2="${width - 20}" y1="${top + plotH}" y2="${top + plotH}" stroke="black"/>`,
    '</svg>',
  );
  return `${parts.join('\n')}\n`;
}

function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function formatTick(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toPrecision(3).replace(/\.?0+$/, '');
}
