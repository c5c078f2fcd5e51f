/** Printing state sequences for people (a table in mm/deg) or programs (JSON in SI units). */
import { StateLayout, type State } from '../contract/state';

export function formatStates(sliderIds: string[], states: State[], json: boolean): string {
  const layout = new StateLayout(sliderIds);
  if (json) return `${JSON.stringify({ layout: layout.names, states: states.map((s) => Array.from(s)) })}\n`;
  const header = ['n', 'pusher x,y [mm]', ...sliderIds.map((id) => `${id} x,y [mm] theta [deg]`)];
  const rows = states.map((s, n) => {
    const [px, py] = layout.pusherPosition(s);
    const cells = [String(n), `${mm(px)}, ${mm(py)}`];
    sliderIds.forEach((_, i) => {
      const p = layout.sliderPose(s, i);
      cells.push(`${mm(p.x)}, ${mm(p.y)}  ${((p.theta * 180) / Math.PI).toFixed(2)}`);
    });
    return cells;
  });
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]): string => cells.map((v, c) => v.padStart(widths[c]!)).join('  ');
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

function mm(m: number): string {
  return (m * 1000).toFixed(1);
}
