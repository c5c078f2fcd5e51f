/** The loss curve as a self-contained SVG: training and validation loss per epoch, log scale. */
import type { EpochRecord } from './train';

const W = 640;
const H = 360;
const M = { left: 64, right: 16, top: 28, bottom: 44 };

function escapeXml(s: string): string {
  return s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

export function lossCurveSvg(history: readonly EpochRecord[], bestEpoch: number, title: string): string {
  const values = history.flatMap((e) => [e.trainLoss, e.valLoss]).filter((v) => v > 0 && Number.isFinite(v));
  const lo = Math.floor(Math.log10(Math.min(...values, 1)));
  const hi = Math.ceil(Math.log10(Math.max(...values, 1e-12)));
  const top = hi > lo ? hi : lo + 1;
  const epochs = Math.max(2, history.length);
  const px = (epoch: number): number => M.left + ((epoch - 1) / (epochs - 1)) * (W - M.left - M.right);
  const py = (v: number): number =>
    M.top + ((top - Math.log10(Math.max(v, 10 ** lo))) / (top - lo)) * (H - M.top - M.bottom);
  const line = (key: 'trainLoss' | 'valLoss'): string =>
    history
      .map((e, i) => `${i === 0 ? 'M' : 'L'}${px(e.epoch).toFixed(1)},${py(e[key]).toFixed(1)}`)
      .join(' ');
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
  );
  parts.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  parts.push(`<text x="${W / 2}" y="18" text-anchor="middle">${escapeXml(title)}</text>`);
  for (let d = lo; d <= top; d++) {
    const y = py(10 ** d).toFixed(1);
    parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
    parts.push(`<text x="${M.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">1e${d}</text>`);
  }
  const step = Math.max(1, Math.ceil(epochs / 10));
  for (let e = 1; e <= epochs; e += step) {
    parts.push(`<text x="${px(e).toFixed(1)}" y="${H - M.bottom + 16}" text-anchor="middle">${e}</text>`);
  }
  parts.push(`<text x="${W / 2}" y="${H - 8}" text-anchor="middle">epoch</text>`);
  parts.push(`<path d="${line('trainLoss')}" fill="none" stroke="#1f77b4" stroke-width="2"/>`);
  parts.push(`<path d="${line('valLoss')}" fill="none" stroke="#d62728" stroke-width="2"/>`);
  if (bestEpoch >= 1) {
    const x = px(bestEpoch).toFixed(1);
    parts.push(
      `<line x1="${x}" x2="${x}" y1="${M.top}" y2="${H - M.bottom}" stroke="#555" stroke-dasharray="4 3"/>`,
    );
    parts.push(`<text x="${x}" y="${M.top + 12}" text-anchor="start" dx="4">best epoch ${bestEpoch}</text>`);
  }
  parts.push(`<text x="${W - M.right - 150}" y="${M.top + 32}" fill="#1f77b4">training loss</text>`);
  parts.push(`<text x="${W - M.right - 150}" y="${M.top + 48}" fill="#d62728">validation loss</text>`);
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
