import { describe, expect, it } from 'vitest';
import { initialState, type Control } from '#contract/state';
import { TrajectoryCost } from '../../src-main/planning/costs/trajectory-cost';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import { openTableScene, referenceScene } from '../helpers/scenes';
import { kinematicStep } from './toy';

function trajectory(g: TaskGeometry, controls: Control[]) {
  const states = [initialState(g.scene)];
  for (const u of controls) states.push(kinematicStep(g.layout, states[states.length - 1]!, u, 1));
  return states;
}

describe('cost terms', () => {
  it('goal-progress makes pushing now cheaper than the same push later; goal-distance alone does not', () => {
    const g = new TaskGeometry(openTableScene(1));
    const now: Control[] = [
      [0.05, 0],
      [0.05, 0],
      [0, 0],
    ];
    const later: Control[] = [
      [0, 0],
      [0.05, 0],
      [0.05, 0],
    ];
    const terminal = new TrajectoryCost([{ term: 'goal-distance', weight: 100 }], g);
    const total = (c: TrajectoryCost, u: Control[]) =>
      c.evaluate(trajectory(g, u), u, [0, 0]).reduce((a, b) => a + b, 0);
    expect(total(terminal, now)).toBeCloseTo(total(terminal, later), 12);
    const progress = new TrajectoryCost(
      [
        { term: 'goal-distance', weight: 100 },
        { term: 'goal-progress', weight: 20 },
      ],
      g,
    );
    expect(total(progress, now)).toBeLessThan(total(progress, later));
  });

  it('obstacle-clearance charges a skim past the obstacle and nothing beyond the margin', () => {
    const scene = referenceScene('isrr-obstacle');
    const g = new TaskGeometry(scene);
    const cost = new TrajectoryCost(
      [{ term: 'obstacle-clearance', weight: 50, sliderMargin: 0.03, pusherMargin: 0.01 }],
      g,
    );
    const at = (y: number) => {
      const x = initialState(scene);
      g.layout.setPusher(x, -0.3, 0.3);
      g.layout.setSlider(x, 0, { x: 0, y, theta: 0 });
      return x;
    };
    const contact = 0.04 + 0.05115; // obstacle radius + slider radius
    const c = (y: number) => cost.step(at(y), at(y), [0, 0], [0, 0]);
    expect(c(contact)).toBeCloseTo(50, 9);
    expect(c(contact + 0.015)).toBeCloseTo(12.5, 9);
    expect(c(contact + 0.031)).toBe(0);
    // Inside the obstacle it stays at its maximum.
    expect(c(0.02)).toBe(50);
  });
});
