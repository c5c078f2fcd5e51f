// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConsoleCommand } from '#contract/console-api';
import { loadSceneFile } from '../../src-main/common/config-files';
import type { Scene } from '#contract/scene';
import SceneView from '../../src-renderer/src/views/SceneView.svelte';
import { fakeClient } from '../helpers/fake-client';

afterEach(cleanup);

const scene = loadSceneFile(path.resolve('resources/scenes/isrr-obstacle.json'));

/** Records what the editor sends; answers scene.update with the given problems. */
function recordingClient(problems: { path: string; message: string }[] = []) {
  return fakeClient((command) => {
    if (command.type === 'scene.list') return { files: ['isrr-obstacle.json'] };
    if (command.type === 'scene.update') return { scene, file: null, problems };
    throw new Error(`unexpected ${command.type}`);
  });
}

const slider = scene.sliders[0]!;

describe('scene editor', () => {
  it('shows SI values in mm and degrees', () => {
    render(SceneView, { client: recordingClient().client, scene, file: 'isrr-obstacle.json', dirty: false });
    const x = screen.getByLabelText(`Slider ${slider.id} x (mm)`) as HTMLInputElement;
    expect(Number(x.value)).toBeCloseTo(slider.pose.x * 1000, 3);
    expect(screen.getByLabelText(`Slider ${slider.id} θ (deg)`)).toBeTruthy();
  });

  it('sends typed mm and degrees to the core in metres and radians', async () => {
    const { client, sent } = recordingClient();
    render(SceneView, { client, scene, file: 'isrr-obstacle.json', dirty: false });
    await fireEvent.change(screen.getByLabelText(`Slider ${slider.id} x (mm)`), {
      target: { value: '-125' },
    });
    await fireEvent.change(screen.getByLabelText(`Slider ${slider.id} θ (deg)`), { target: { value: '90' } });
    await fireEvent.change(screen.getByLabelText('Goal radius (mm)'), { target: { value: '35' } });
    const updates = sent.filter(
      (c): c is Extract<ConsoleCommand, { type: 'scene.update' }> => c.type === 'scene.update',
    );
    expect(updates).toHaveLength(3);
    expect((updates[0]!.scene as Scene).sliders[0]!.pose.x).toBeCloseTo(-0.125, 12);
    expect((updates[1]!.scene as Scene).sliders[0]!.pose.theta).toBeCloseTo(Math.PI / 2, 12);
    expect((updates[2]!.scene as Scene).goal.radius).toBeCloseTo(0.035, 12);
  });

  it('shows the core validation messages with their field paths', async () => {
    const { client } = recordingClient([
      { path: 'sliders[0].shape.radius', message: 'must be greater than 0' },
    ]);
    render(SceneView, { client, scene, file: null, dirty: true });
    await fireEvent.change(screen.getByLabelText(`Slider ${slider.id} radius (mm)`), {
      target: { value: '-3' },
    });
    const problems = await screen.findByLabelText('Validation problems');
    expect(problems.textContent).toContain('sliders[0].shape.radius');
    expect(problems.textContent).toContain('must be greater than 0');
  });

  it('refuses text that is not a number without calling the core', async () => {
    const { client, sent } = recordingClient();
    render(SceneView, { client, scene, file: null, dirty: false });
    await fireEvent.change(screen.getByLabelText('Pusher x (mm)'), { target: { value: 'abc' } });
    expect((await screen.findByLabelText('Validation problems')).textContent).toContain(
      'Pusher x: must be a number',
    );
    expect(sent.some((c) => c.type === 'scene.update')).toBe(false);
  });
});

describe('scene editor: refused edits stay as a draft', () => {
  const offTable = [{ path: 'goal.center', message: 'is off the table' }];

  it('keeps the typed value in its field with the problem, until discarded', async () => {
    const { client } = recordingClient(offTable);
    render(SceneView, { client, scene, file: 'isrr-obstacle.json', dirty: false });
    const goalX = () => screen.getByLabelText('Goal x (mm)') as HTMLInputElement;
    await fireEvent.change(goalX(), { target: { value: '5000' } });
    expect((await screen.findByTestId('scene-draft')).textContent).toContain('Draft not applied');
    expect(screen.getByLabelText('Validation problems').textContent).toContain(
      'goal.center: is off the table',
    );
    expect(goalX().value).toBe('5000');
    await fireEvent.click(screen.getByRole('button', { name: 'Discard draft' }));
    expect(screen.queryByTestId('scene-draft')).toBeNull();
    expect(Number(goalX().value)).toBeCloseTo(scene.goal.center.x * 1000, 3);
  });

  it('asks before a Load throws away unsaved changes', async () => {
    const { client, sent } = recordingClient();
    render(SceneView, { client, scene, file: 'isrr-obstacle.json', dirty: true });
    await screen.findByRole('option', { name: 'isrr-obstacle.json' });
    await fireEvent.click(screen.getByRole('button', { name: 'Load' }));
    expect((await screen.findByTestId('confirm-load')).textContent).toContain(
      'throws away its unsaved changes',
    );
    expect(sent.some((c) => c.type === 'scene.load')).toBe(false);
  });
});
