// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConsoleCommand } from '#contract/console-api';
import { loadSceneFile } from '../../src-main/common/config-files';
import { sceneSchema, type Scene } from '#contract/scene';
import SceneView from '../../src-renderer/src/views/SceneView.svelte';
import { fakeClient } from '../helpers/fake-client';

afterEach(cleanup);

const scene = loadSceneFile(path.resolve('resources/scenes/isrr-obstacle.json'));

/** Records what the editor sends; answers scene.update with the given problems. */
function recordingClient(problems: { path: string; message: string }[] = []) {
  return fakeClient((command) => {
    if (command.type === 'scene.list')
      return {
        scenes: [{ file: 'isrr-obstacle.json', source: 'shipped' }],
        saveDir: '/home/op/.parapush/scenes',
      };
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
    await fireEvent.change(screen.getByLabelText('Cylindrical pusher x (mm)'), { target: { value: 'abc' } });
    expect((await screen.findByLabelText('Validation problems')).textContent).toContain(
      'Cylindrical pusher x: must be a number',
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

/**
 * A core with a scene library: the operator's mine.json and the shipped isrr-obstacle.json and
 * wafr-clutter.json; bad.json fails to load; saves report a file of the operator's they would replace.
 */
function libraryClient() {
  const own = new Set(['mine.json']);
  return fakeClient((command) => {
    switch (command.type) {
      case 'scene.list':
        return {
          scenes: [
            ...[...own].map((file) => ({ file, source: 'user' })),
            { file: 'bad.json', source: 'shipped' },
            { file: 'isrr-obstacle.json', source: 'shipped' },
            { file: 'wafr-clutter.json', source: 'shipped' },
          ],
          saveDir: '/home/op/.parapush/scenes',
        };
      case 'scene.load':
        return command.file === 'bad.json'
          ? {
              scene,
              file: 'isrr-obstacle.json',
              problems: [{ path: 'pusher.radius', message: 'must be at most 1 m' }],
            }
          : { scene, file: command.file, problems: [] };
      case 'scene.import':
        return command.text.startsWith('{')
          ? { scene, file: null, problems: [] }
          : { scene, file: null, problems: [{ path: '', message: 'not valid JSON' }] };
      case 'scene.save': {
        const path = `/home/op/.parapush/scenes/${command.file}`;
        if (own.has(command.file) && !command.overwrite) return { file: command.file, path, saved: false };
        own.add(command.file);
        return { file: command.file, path, saved: true };
      }
      case 'scene.update':
        return { scene: command.scene, file: null, problems: [] };
      default:
        throw new Error(`unexpected ${command.type}`);
    }
  });
}

const saveName = () => (screen.getByLabelText('Save as file name') as HTMLInputElement).value;
const updates = (sent: ConsoleCommand[]): Scene[] =>
  sent.filter((c) => c.type === 'scene.update').map((c) => (c as { scene: Scene }).scene);

async function loadFromLibrary(key: string): Promise<void> {
  const list = screen.getByLabelText('Scene file') as HTMLSelectElement;
  await screen.findByRole('option', { name: key.split(':')[1]! });
  await fireEvent.change(list, { target: { value: key } });
  await fireEvent.click(screen.getByRole('button', { name: 'Load' }));
}

async function importText(name: string, text: string): Promise<void> {
  const input = screen.getByLabelText('Open file…') as HTMLInputElement;
  const file = new File([text], name, { type: 'application/json' });
  Object.defineProperty(input, 'files', { value: [file], configurable: true });
  await fireEvent.change(input);
}

describe('scene editor: saving', () => {
  it('says where saves go and follows the file last opened, loaded or imported', async () => {
    const { client, sent } = libraryClient();
    render(SceneView, { client, scene, file: 'isrr-obstacle.json', source: 'shipped', dirty: false });
    await waitFor(() =>
      expect(screen.getByTestId('save-dir').textContent).toContain(
        'Saves go to /home/op/.parapush/scenes; shipped scenes are never changed.',
      ),
    );
    expect(saveName()).toBe('isrr-obstacle.json');
    await loadFromLibrary('shipped:wafr-clutter.json');
    await waitFor(() => expect(saveName()).toBe('wafr-clutter.json'));
    await importText('picked.json', JSON.stringify(scene));
    await waitFor(() => expect(saveName()).toBe('picked.json'));
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(sent.at(-1)?.type).toBe('scene.list'));
    expect(sent.filter((c) => c.type === 'scene.save')).toEqual([
      { type: 'scene.save', file: 'picked.json', overwrite: false },
    ]);
  });

  it('asks before replacing a file of the operator, and replaces it only on their word', async () => {
    const { client, sent } = libraryClient();
    render(SceneView, { client, scene, file: 'isrr-obstacle.json', source: 'shipped', dirty: true });
    await fireEvent.input(screen.getByLabelText('Save as file name'), { target: { value: 'mine.json' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect((await screen.findByTestId('confirm-overwrite')).textContent).toContain(
      '/home/op/.parapush/scenes/mine.json exists.',
    );
    await fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByTestId('confirm-overwrite')).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await fireEvent.click(await screen.findByRole('button', { name: 'Replace mine.json' }));
    await waitFor(() => expect(screen.queryByTestId('confirm-overwrite')).toBeNull());
    expect(sent.filter((c) => c.type === 'scene.save')).toEqual([
      { type: 'scene.save', file: 'mine.json', overwrite: false },
      { type: 'scene.save', file: 'mine.json', overwrite: false },
      { type: 'scene.save', file: 'mine.json', overwrite: true },
    ]);
  });

  it('keeps Save off while the fields hold a draft the console refused', async () => {
    const { client, sent } = recordingClient([{ path: 'goal.center', message: 'is off the table' }]);
    render(SceneView, { client, scene, file: 'isrr-obstacle.json', source: 'shipped', dirty: false });
    const save = screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement;
    expect(save.disabled).toBe(false);
    await fireEvent.change(screen.getByLabelText('Goal x (mm)'), { target: { value: '5000' } });
    await screen.findByTestId('scene-draft');
    expect(save.disabled).toBe(true);
    expect(save.title).toContain('fix or discard them first');
    await fireEvent.click(save);
    expect(sent.some((c) => c.type === 'scene.save')).toBe(false);
  });
});

describe('scene editor: opening files', () => {
  it('names a library file that was not loaded, with its problems', async () => {
    const { client } = libraryClient();
    render(SceneView, { client, scene, file: 'isrr-obstacle.json', source: 'shipped', dirty: false });
    await loadFromLibrary('shipped:bad.json');
    expect((await screen.findByTestId('not-loaded')).textContent).toContain(
      'bad.json was not loaded: its problem is listed below. The scene on screen is unchanged.',
    );
    expect(screen.getByLabelText('Validation problems').textContent).toContain(
      'pusher.radius: must be at most 1 m',
    );
    expect(saveName()).toBe('isrr-obstacle.json');
  });

  it('names an opened file that was not loaded', async () => {
    const { client } = libraryClient();
    render(SceneView, { client, scene, file: 'isrr-obstacle.json', source: 'shipped', dirty: false });
    await importText('broken.json', 'not json');
    expect((await screen.findByTestId('not-loaded')).textContent).toContain('broken.json was not loaded');
  });
});

describe('scene editor: obstacles and objects', () => {
  async function press(name: string): Promise<Scene> {
    const { client, sent } = libraryClient();
    render(SceneView, { client, scene, file: 'isrr-obstacle.json', source: 'shipped', dirty: false });
    await fireEvent.click(screen.getByRole('button', { name }));
    await waitFor(() => expect(updates(sent)).toHaveLength(1));
    return updates(sent)[0]!;
  }

  it('adds an obstacle on a free spot of the table, clear of everything on it', async () => {
    const next = await press('Add obstacle');
    expect(next.obstacles).toHaveLength(2);
    const added = next.obstacles[1]!;
    expect(added).toMatchObject({ id: 'obstacle1', shape: { kind: 'cylinder', radius: 0.035 } });
    expect(sceneSchema.safeParse(next).success).toBe(true);
    for (const other of [
      scene.sliders[0]!.pose,
      scene.obstacles[0]!.pose,
      scene.goal.center,
      scene.pusher!.position,
    ])
      expect(Math.hypot(added.pose.x - other.x, added.pose.y - other.y)).toBeGreaterThan(0.035 + 0.035);
  });

  it('adds an object (slider) like the first one', async () => {
    const next = await press('Add object');
    expect(next.sliders.map((s) => s.id)).toEqual(['object', 'object1']);
    expect(next.sliders[1]).toMatchObject({ mass: 0.5, friction: 0.2 });
    expect(sceneSchema.safeParse(next).success).toBe(true);
  });

  it('removes an obstacle', async () => {
    expect((await press('Remove obstacle')).obstacles).toEqual([]);
  });

  it("refuses to remove the goal's object, and says why", async () => {
    const { client, sent } = libraryClient();
    render(SceneView, { client, scene, file: 'isrr-obstacle.json', source: 'shipped', dirty: false });
    await fireEvent.click(screen.getByRole('button', { name: 'Remove object' }));
    expect((await screen.findByRole('alert')).textContent).toContain("object is the goal's object");
    expect(updates(sent)).toEqual([]);
  });

  it('resizes an obstacle into a box as wide as it was (a typed radius: below)', async () => {
    expect((await press('Make obstacle a box')).obstacles[0]!.shape).toEqual({
      kind: 'box',
      sizeX: 0.08,
      sizeY: 0.08,
      height: 0.06,
    });
  });

  it('rounds typed values to 0.1 mm and 0.1 deg, in metres and radians', async () => {
    const { client, sent } = libraryClient();
    render(SceneView, { client, scene, file: 'isrr-obstacle.json', source: 'shipped', dirty: false });
    await fireEvent.change(screen.getByLabelText('Obstacle obstacle radius (mm)'), {
      target: { value: '40.04' },
    });
    await fireEvent.change(screen.getByLabelText('Obstacle obstacle x (mm)'), {
      target: { value: '300.089' },
    });
    await fireEvent.change(screen.getByLabelText('Obstacle obstacle θ (deg)'), {
      target: { value: '12.345' },
    });
    await waitFor(() => expect(updates(sent)).toHaveLength(3));
    const [radius, x, theta] = updates(sent).map((s) => s.obstacles[0]!);
    expect(radius!.shape).toMatchObject({ radius: 0.04 });
    expect(x!.pose.x).toBe(0.3001);
    expect(theta!.pose.theta).toBe((12.3 * Math.PI) / 180);
  });
});
