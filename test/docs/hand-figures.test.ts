/**
 * No measured result is typed by hand into README.md or docs/*.md: measured figures come from
 * `npm run results` inside generated blocks (src-main/experiments/hand-figures.ts says what counts).
 * The allow-list holds constants, each with enough context to say why it is one: paper values and
 * settings, not measurements.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { handWrittenFigures } from '../../src-main/experiments/hand-figures';
import { repoRoot } from '../helpers/scenes';

/** Constants written in the pages: settings, derived limits and the papers' own values, by page. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  'README.md': [
    'its 95% interval', // the confidence level, a setting
    'next 0.2 s would take the tool', // the supervisor's look-ahead, a setting
  ],
  'docs/planner.md': ['95% Wilson interval'],
  'docs/commissioning.md': [
    'Speed slider at 100 %', // the controller check's requirement
    'speed slider at 50 %', // the refusal shown, a setting of the virtual lab
    'below 100 %',
    'teach pendant to 100 %',
  ],
  'docs/console.md': [
    'teach pendant to 100 %', // pre-flight's requirement
    'rounded to 0.1 mm and 0.1 deg', // the editor's resolution
    '(14.5 mm = 0.0145)', // a unit conversion in an example message
    'makes no progress for 1.5 s', // the move's stall limit
    'corners are (±342, ±267) mm', // a shipped scene's geometry
    'NatNet pose over 0.5 s', // the averaging window
  ],
  'docs/devices.md': [
    'sent to 30002/30003', // the controller's ports
    '0.5 s); a program sent before then', // the virtual controller's release time
    'a caller that pauses 0.5 s mid-push', // a test's fault
    '0.17 s from 0.25 m/s at 1.5 m/s^2, 0.25 s for the yaw', // stopping times from the limits
    'refuses anything but 100 %', // pre-flight's requirement
    'teach pendant to 100 %',
    'speed slider at 50 %', // a test's setting
    'backlog over 0.25 s only the newest 0.25 s', // the virtual Motive's backlog limit
  ],
  'docs/motion-capture.md': [
    'within ±0.3 m', // the binding's range check
    '0.02 mm and 0.01 deg by default', // the virtual Motive's jitter setting
    'plus 0.1 s for frames that arrive bunched', // the frame-order rule
    'increasing for 0.5 s', // the restart confirmation time
    'plus the 0.1 s staleness limit', // the pose-jump rule
  ],
  'docs/physics-and-parareal.md': [
    '(default 0.001 s)', // the scene's default timestep
    'pusher radius 14.5 mm', // the reference setup's parameters
    'radius 51.15 mm',
    'lags the pusher by only', // a derived design figure, on the next line:
    '0.1 mm/s. The pusher displacement stays within 1% of u*dt (tested)', // and the test's tolerance
    'Overlaps up to 0.5 mm', // MuJoCo's resting overlap, a setting
    'spread, 8.1 mm / 4.2 deg', // ISRR 2019's real-world spread
    'pusher 0.1 mm to the side', // the fine floor's perturbation, a setting
  ],
  'docs/robot.md': [
    '(default 0.1 s, at most', // the watchdog's default and bound
    '0.1 s) stops the arm',
    '(0.25 s on', // the stop duration from the limits
    '1e-4 .. 0.01 s', // a setting's range
    '8 ms .. 0.1 s',
  ],
  'docs/safety.md': [
    'over the next 0.2 s', // the supervisor's look-ahead
    'within the next 0.2 s',
    'command period: 16.3 ms)', // the reaction time from the rates
    'the same margin: 16.3 ms of reaction',
    'speed slider at 100 %', // pre-flight's requirement
    'teach pendant to 100 %',
    'plus 0.1 s of bunching', // the frame-order rule
    'increasing for 0.5 s', // the restart confirmation time
    'gap + 0.1 s, + 2 mm', // the pose-jump rule
    'within ±10 m', // the calibration's range check
    'silent 0.3 s', // a test's fault
    'after 0.5 s |',
    'longer than 0.5 s (both', // the restart confirmation time
    'long before 0.5 s',
    '(95% of each second)', // the kernel's real-time throttling
    'longer than 0.25 s only its newest', // the virtual Motive's backlog limit
    '0.25 s is sent',
  ],
  'docs/sessions.md': ['at 10 % of a 4,000-message log'], // a test's fault
  'docs/physics-fit.md': [
    'pieces of 0.1 s', // the replay's piece length (PIECE)
    'over 0.2 s of rest', // the rest averaged (REST_AVERAGE)
    'multiplier 1/4 to 4', // the fit's search bounds
    '7.5 % is reported NOT DETERMINED', // the identifiability threshold (IDENTIFIABLE_SIGMA)
    'resting 0.5 s after each control', // the probe's rest (PROBE_REST)
    '15 % (held-out error lower)', // a test's criterion
    "recovered within 15 %, the profile carrying the pusher's", // a test's criterion
  ],
  'docs/virtual-lab.md': [
    "calibrated system's 0.02 mm jitter", // the default jitter setting
    'by 2.5 mm on cameras 50 ms late', // a test's expectation, speed times latency
    'holds still 0.5 s', // the probe's rest time
    'late with 0.5 mm noise', // the bench's lab settings
    'with 95 % intervals', // the confidence level
  ],
};

/**
 * Pages another area still types bench figures into by hand (their benches have no generator into
 * a block yet): each may hold at most this many, so none is added while they wait.
 */
const NOT_YET_GENERATED: Readonly<Record<string, number>> = {};

const pages = [
  'README.md',
  ...readdirSync(path.join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md') && f !== 'results.md')
    .map((f) => `docs/${f}`),
].sort();

describe('hand-written figures', () => {
  it('finds measured results and leaves generated blocks, code and allowed constants alone', () => {
    const page = [
      'TAMPC took 4.3 ± 1.4 s, 29/30 runs, p = 0.032, 2.5 times faster, 97% of them.',
      '<!-- t: generated by `npm run results`, do not edit -->',
      '| fine | 17.5 s | 99/100 |',
      '<!-- end of t -->',
      'Run `--scenes 30 --timeout 5 s`, then:',
      '',
      '    npx parapush experiment --scenes 30  # 12.0 s',
      'The clearance is 5.0 mm by default.',
    ].join('\n');
    const found = handWrittenFigures(page, ['clearance is 5.0 mm']);
    expect(found.map((f) => f.figure)).toEqual([
      '±',
      '1.4 s',
      '29/30',
      'p = 0.032',
      '2.5 times faster',
      '97%',
    ]);
    expect(found.every((f) => f.line === 1)).toBe(true);
    expect(handWrittenFigures(page).map((f) => f.line)).toContain(8);
    // Whole numbers count after a statistic; a period or a limit alone is a setting.
    expect(
      handWrittenFigures(
        'Ticks every 5 ms, stale after 100 ms: p50 3 ms, median 5 s, max 28 ms, p99 3.5 ms.',
      ).map((f) => f.figure),
    ).toEqual(['p50 3 ms', 'median 5 s', 'max 28 ms', '3.5 ms']);
  });

  for (const page of pages) {
    const waiting = NOT_YET_GENERATED[page];
    it(`${page} has no measured result outside a generated block${waiting === undefined ? '' : ` beyond the ${waiting} still waiting for a generator`}`, () => {
      const text = readFileSync(path.join(repoRoot, page), 'utf8');
      const found = handWrittenFigures(text, ALLOWED[page] ?? []).map(
        (f) => `${page}:${f.line}: ${f.figure} in "${f.text}"`,
      );
      if (waiting === undefined) expect(found).toEqual([]);
      else expect(found.length, found.join('\n')).toBeLessThanOrEqual(waiting);
      // An allowed phrase the page no longer holds would let a later figure through unseen.
      const flat = text.replace(/\s+/g, ' ');
      for (const phrase of ALLOWED[page] ?? [])
        expect(flat, `${page}: "${phrase}" is allowed but gone`).toContain(phrase);
    });
  }
});
