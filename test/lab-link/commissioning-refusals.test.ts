/**
 * docs/commissioning.md's table of refusals is the checks' own list (lab-link/commissioning-
 * refusals.ts), built from the texts the checks print: it cannot drift from what the console says.
 * PARAPUSH_UPDATE_DOCS=1 writes the table into the page.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMISSIONING_REFUSALS, refusalsTable } from '../../src-main/lab-link/commissioning-refusals';
import { judgeStreamedAxes } from '../../src-main/mocap/streamed-axes';
import { judgeMocapInterface } from '../../src-main/mocap/mocap-interface';
import { speedSliderCheck } from '../../src-main/safety/controller-checks';
import { streamVersionProblem } from '../../src-main/mocap/version';
import type { RobotState } from '../../src-main/robot/robot-state';
import { repoRoot } from '../helpers/scenes';

const page = path.join(repoRoot, 'docs/commissioning.md');
const START =
  '<!-- refusals table: generated from src-main/lab-link/commissioning-refusals.ts, do not edit -->';
const END = '<!-- end of refusals table -->';

describe("docs/commissioning.md's table of refusals", () => {
  it('is the list the checks print, row for row', () => {
    const between = (text: string): [number, number] => [
      text.indexOf(START) + START.length,
      text.indexOf(END),
    ];
    const table = `\n\n${refusalsTable()}\n\n`;
    if (process.env.PARAPUSH_UPDATE_DOCS === '1') {
      const text = readFileSync(page, 'utf8');
      const [from, to] = between(text);
      writeFileSync(page, text.slice(0, from) + table + text.slice(to));
    }
    const text = readFileSync(page, 'utf8');
    expect(text.indexOf(START), 'the page has the table markers').toBeGreaterThanOrEqual(0);
    const [from, to] = between(text);
    expect(text.slice(from, to)).toBe(table);
  });

  it('holds the fixes the checks print when they refuse (a sample of each kind)', () => {
    const fixes = COMMISSIONING_REFUSALS.map((r) => r.fix);
    const slider = speedSliderCheck({ speedScaling: 0.5 } as RobotState);
    expect(fixes).toContain(slider.fix);
    const zUp = judgeStreamedAxes(
      [
        {
          name: 'Box',
          position: [0.1, 0.2, 0.02],
          orientation: [0, 0, Math.sin(0.25), Math.cos(0.25)],
          trackingValid: true,
        },
      ],
      'y',
    );
    expect(fixes).toContain(zUp.fix);
    const v4 = (address: string) => ({ address, netmask: '255.255.255.0', family: 'IPv4' });
    const second = judgeMocapInterface('10.0.1.5', '10.0.1.2', '192.168.1.2', {
      robot0: [v4('192.168.1.2')],
      mocap0: [v4('10.0.1.2')],
    });
    expect(fixes).toContain(second.fix!.replace('10.0.1.2', 'ROUTE_ADDRESS'));
    expect(streamVersionProblem([2, 9, 0, 0])!.endsWith(fixes.find((f) => f.includes('3.0 or newer'))!)).toBe(
      true,
    );
  });
});
