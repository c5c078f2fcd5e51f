import { describe, expect, it } from 'vitest';
import { physicsLabTable, type PhysicsLabResult } from '../../src-main/experiments/physics-lab-table';
import { benchRoot, MACHINE } from '../helpers/bench-root';

const summary = (p50: number) => ({
  position: { p50, p95: 2 * p50, rms: 1.5 * p50 },
  yaw: { p50: 0.001, p95: 0.01, rms: 0 },
  count: 40,
});
const run = (outcome: string, taskTime: number | null, actions: number) => ({ outcome, taskTime, actions });

function result(friction: number, after: number, matchingLow: number): PhysicsLabResult {
  return {
    machine: { ...MACHINE, commit: 'abcdef0123456789' },
    scene: 'isrr-obstacle',
    command: 'npm run bench -- physics-lab',
    worlds: {},
    settings: { probes: 3, heldOut: 2, runs: 2, bootstrap: 3 },
    probes: { differing: { runs: 5, rerun: 1 }, matching: { runs: 3, rerun: 0 } },
    fits: [
      {
        world: 'differing',
        estimates: [
          {
            parameter: 'friction',
            truth: 1.5,
            value: friction,
            low: friction * 0.95,
            high: friction * 1.05,
            identifiable: true,
          },
          { parameter: 'mass', truth: 1.6, value: 1.02, low: 0.9, high: 1.1, identifiable: false },
          { parameter: 'latency', truth: 0.01, value: 0.004, low: 0, high: 0.02, identifiable: false },
        ],
        warnings: ['mass (objects’ mass) is not determined by these logs'],
        heldOut: { runs: 2, before: summary(0.002), after: summary(after) },
      },
      {
        world: 'matching',
        estimates: [
          { parameter: 'friction', truth: 1, value: 1.02, low: matchingLow, high: 1.07, identifiable: true },
        ],
        warnings: [],
        heldOut: null,
      },
    ],
    taskRuns: [
      { condition: 'differing lab, scene physics', runs: [run('finished', 30, 20), run('failed', null, 40)] },
      {
        condition: 'differing lab, fitted physics',
        runs: [run('finished', 25, 16), run('finished', 27, 18)],
      },
      { condition: 'matching lab, scene physics', runs: [run('finished', 26, 17), run('finished', 26, 17)] },
    ],
    stages: { 'probing the differing world': 600 },
  };
}

describe('physics-lab bench block', () => {
  it('shows the fit against the truth, the held-out error and the task runs, and judges the criteria', () => {
    const text = physicsLabTable(benchRoot({ 'physics-lab': result(1.6, 0.0009, 0.97) }));
    expect(text).toContain('at commit `abcdef012345`');
    expect(text).toContain('5 on the differing world (1 run again after a stop), 3 on the matching world');
    expect(text).toContain('| differing | friction | x1.500 | x1.600 | [x1.520, x1.680] | yes | 6.7 % |');
    expect(text).toContain('| differing | latency | 10.0 ms | 4.0 ms | [0.0 ms, 20.0 ms] | no | -6.0 ms |');
    expect(text).toContain(
      '| differing | 2 | 40 | 3.00 / 1.35 | 2.00 / 0.90 | 4.00 / 1.80 | 3.00 / 1.35 | 0.57 / 0.57 | 0.00 / 0.00 |',
    );
    expect(text).toContain(
      '| differing lab, scene physics | 2 | 1/2 [9, 91] % | 30.0 (n = 1) | 20.0 (n = 1) |',
    );
    expect(text).toContain(
      "- **holds**: every parameter the fit reports as determined is within 15 % of the world's (friction 6.7 %).",
    );
    expect(text).toContain(
      '- **holds**: the held-out multi-step prediction error (root mean square, 1 mm as 1 deg) falls to at most 0.5',
    );
    expect(text).toContain(
      "- **holds**: on the matching world every fitted value is within its own 1-sigma interval of the scene's (all are).",
    );
  });

  it('judges the task runs: success not lower, time and actions closer to the matching lab', () => {
    const text = physicsLabTable(benchRoot({ 'physics-lab': result(1.6, 0.0009, 0.97) }));
    expect(text).toContain(
      "- **holds**: with the fitted physics on the differing lab: success not lower, task time and actions closer to the matching lab's than with the scene's physics (success 1/2 to 2/2; mean task time 30.0 s to 26.0 s against 26.0 s; actions 20.0 to 17.0 against 17.0;",
    );
  });

  it('says which criterion fails and why', () => {
    const text = physicsLabTable(benchRoot({ 'physics-lab': result(2, 0.0015, 1.01) }));
    expect(text).toContain(
      '- **does not hold**: every parameter the fit reports as determined is within 15 % (friction 33.3 %)'.replace(
        '15 % (',
        "15 % of the world's (",
      ),
    );
    expect(text).toMatch(/\*\*does not hold\*\*: the held-out .* \(3\.00 to 2\.25 \(0\.75\)\)/);
    expect(text).toMatch(
      /\*\*does not hold\*\*: on the matching world .*outside: friction x1\.020 \[x1\.010, x1\.070\]/,
    );
  });
});
