// @vitest-environment jsdom
/**
 * The first setup's template form: each length typed in mm goes to the core in metres in its own
 * place of the template; an emptied field keeps *Write first setup* off.
 */
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import type { LabConnectionInfo } from '#contract/lab-setup';
import SetupTemplate from '../../src-renderer/src/components/SetupTemplate.svelte';
import { fakeClient } from '../helpers/fake-client';
import { referenceScene } from '../helpers/scenes';

afterEach(cleanup);

const lab: LabConnectionInfo = {
  configured: true,
  description: 'lab: robot 127.0.0.1',
  connected: false,
  setupFile: '/tmp/setups/127.0.0.1.json',
  setupExists: false,
  notCalibrated: [],
  notice: null,
  mocapInterface: null,
};

describe('the first setup template', () => {
  it('sends every field in metres, in its place', async () => {
    const { client, sent } = fakeClient(() => ({ ...lab, setupExists: true }));
    render(SetupTemplate, { client, scene: referenceScene('isrr-obstacle'), lab, onCreated: () => {} });
    const type = (label: string, mm: string) =>
      fireEvent.input(screen.getByLabelText(label), { target: { value: mm } });
    await type('Pusher offset y (mm)', '12.5');
    await type('Pusher height high (mm)', '25');
    await type('Largest calibration residual (mm)', '2');
    await fireEvent.click(screen.getByRole('button', { name: 'Write first setup' }));
    expect(sent).toEqual([
      {
        type: 'setup.create',
        template: {
          name: 'first-setup',
          table: { x: 1, y: 0.8 },
          pusherOffset: [0, 0.0125, 0.15],
          workspaceMargin: 0.03,
          heightBand: [0, 0.025],
          maxCalibrationResidual: 0.002,
          mocapUpAxis: 'y',
        },
      },
    ]);
  });

  it('keeps Write first setup off while a field is empty', async () => {
    const { client } = fakeClient(() => lab);
    render(SetupTemplate, { client, scene: referenceScene('isrr-obstacle'), lab, onCreated: () => {} });
    await fireEvent.input(screen.getByLabelText('Workspace margin (mm)'), { target: { value: '' } });
    expect((screen.getByRole('button', { name: 'Write first setup' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
  });
});
