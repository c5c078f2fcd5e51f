/**
 * Which lab a run was on (issue 17): the devices' own words make the lab virtual, real or mixed;
 * the setup's frames land where the calibrations put them on the table; a session log's summary
 * reads the lab back, and an older log without the record says nothing (null, "unknown").
 */
import { describe, expect, it } from 'vitest';
import { labKindOf } from '#contract/lab-view';
import { mocapFrameOnTable } from '../../src-main/calibration/mocap-table';
import { robotBaseOnTable } from '../../src-main/calibration/robot-base';
import { setupView } from '../../src-main/lab-link/link-views';
import { SummaryBuilder } from '../../src-main/session/session-summary';
import { sampleLab, sampleSetup } from './sample-messages';

const encoder = new TextEncoder();
const message = (value: unknown) =>
  encoder.encode(JSON.stringify({ mono: 0, wall: 1, ...(value as object) }));

describe('which lab', () => {
  it('goes by what the devices say of themselves', () => {
    expect(labKindOf('URSoftware 5.11.1.108318 (virtual)', 'Parapush virtual Motive')).toBe('virtual');
    expect(labKindOf('URSoftware 5.11.1.108318 (Mar 17 2021)', 'Motive')).toBe('real');
    expect(labKindOf('URSoftware 5.11.1.108318 (Mar 17 2021)', 'Parapush capture replay')).toBe('mixed');
    expect(labKindOf(null, 'Parapush virtual Motive')).toBe('virtual');
    expect(labKindOf(null, null)).toBe('unknown');
  });
});

describe("the setup's frames on the table", () => {
  it('puts the robot base where the table -> base calibration says', () => {
    // The virtual lab's default: the table origin 0.5 m along -y of the base, not turned.
    const base = robotBaseOnTable({ yaw: 0, offset: [0, -0.5, 0] });
    expect(base.x).toBeCloseTo(0);
    expect(base.y).toBeCloseTo(0.5);
    expect(base.yaw).toBeCloseTo(0);
    // The table turned a quarter in the base frame: the base x axis points along -y of the table.
    const turned = robotBaseOnTable({ yaw: Math.PI / 2, offset: [0.5, 0, 0] });
    expect(turned.x).toBeCloseTo(0);
    expect(turned.y).toBeCloseTo(0.5);
    expect(turned.yaw).toBeCloseTo(-Math.PI / 2);
    // The same calibration as a rotation matrix and translation gives the same frame.
    const asMatrix = robotBaseOnTable({
      R: [
        [0, -1, 0],
        [1, 0, 0],
        [0, 0, 1],
      ],
      t: [0.5, 0, 0],
    });
    expect(asMatrix.x).toBeCloseTo(turned.x);
    expect(asMatrix.y).toBeCloseTo(turned.y);
    expect(asMatrix.yaw).toBeCloseTo(turned.yaw);
  });

  it('puts the motion-capture origin at its translation and turns its x axis by the rotation', () => {
    const f = mocapFrameOnTable({
      rotation: [0, 0, Math.SQRT1_2, Math.SQRT1_2],
      translation: [0.1, -0.2, 0],
    });
    expect(f.x).toBeCloseTo(0.1);
    expect(f.y).toBeCloseTo(-0.2);
    expect(f.yaw).toBeCloseTo(Math.PI / 2);
    expect(setupView(sampleSetup)).toMatchObject({
      name: 'sample',
      table: { x: 1, y: 0.8 },
      workspaceMargin: 0.03,
    });
  });
});

describe('the lab in a session summary', () => {
  it('reads the lab the run was on; a later unconnected record does not undo it', () => {
    const b = new SummaryBuilder();
    b.add('/session/lab', 1n, message({ lab: sampleLab }));
    b.add('/session/lab', 2n, message({ lab: { ...sampleLab, kind: 'unknown', connected: false } }));
    expect(b.build(false).lab).toBe('virtual');
    const real = new SummaryBuilder();
    real.add('/session/lab', 1n, message({ lab: { ...sampleLab, kind: 'real' } }));
    expect(real.build(false).lab).toBe('real');
  });

  it('says nothing of the lab for a log recorded before logs named it', () => {
    const b = new SummaryBuilder();
    b.add('/run/status', 1n, message({ event: { type: 'log' } }));
    expect(b.build(false).lab).toBeNull();
  });
});
