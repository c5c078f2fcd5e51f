/**
 * The Foxglove layout shipped for Parapush logs and live runs (resources/foxglove/parapush-layout.json):
 * its panels (3D, plots, state transitions, log, raw messages) each have a configuration, and every
 * topic and message path it names is one of our channels' and resolves, in the schema the log
 * stores for that channel, to a field of the kind the panel shows (numbers for plots).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { channelJsonSchema, isTopic } from '../../src-main/session/channels';
import { FRAMES } from '../../src-main/session/foxglove';
import { repoRoot } from '../helpers/scenes';

interface Layout {
  configById: Record<string, Record<string, unknown>>;
  layout: unknown;
}
const layout = JSON.parse(
  readFileSync(path.join(repoRoot, 'resources/foxglove/parapush-layout.json'), 'utf8'),
) as Layout;

/** The panel ids of a mosaic tree. */
function leaves(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  const n = node as { first: unknown; second: unknown };
  return [...leaves(n.first), ...leaves(n.second)];
}

type Node = { type?: string; properties?: Record<string, Node>; items?: Node; oneOf?: unknown[] };

/** The schema node a message path ("/scene/state.sliders[0].x") names, or a reason it names none. */
function resolve(messagePath: string): Node | string {
  const dot = messagePath.indexOf('.');
  const topic = messagePath.slice(0, dot);
  if (!isTopic(topic)) return `${topic}: no such channel`;
  let node = channelJsonSchema(topic) as Node;
  for (const part of messagePath.slice(dot + 1).split('.')) {
    const [, name, index] = /^(\w+)(\[\d+\])?$/.exec(part) ?? [];
    const next = name === undefined ? undefined : node.properties?.[name];
    if (!next) return `${messagePath}: no field ${part}`;
    node = next;
    if (index) {
      if (node.type !== 'array' || !node.items) return `${messagePath}: ${name} is no array`;
      node = node.items;
    }
  }
  return node;
}

const configs = Object.entries(layout.configById);
const ofType = (type: string) => configs.filter(([id]) => id.startsWith(`${type}!`)).map(([, c]) => c);

describe('the shipped Foxglove layout', () => {
  it('configures each panel it places, with the 3D, plot, log and raw message panels', () => {
    expect(leaves(layout.layout).sort()).toEqual(Object.keys(layout.configById).sort());
    for (const type of ['3D', 'Plot', 'RosOut', 'RawMessages', 'StateTransitions'])
      expect(ofType(type).length, type).toBeGreaterThan(0);
  });

  it('draws in the table frame, the Foxglove scene channels shown', () => {
    const [threeD] = ofType('3D');
    expect(threeD!.followTf).toBe(FRAMES.table);
    for (const topic of Object.keys(threeD!.topics as object)) expect(isTopic(topic), topic).toBe(true);
  });

  it('plots numbers of our channels, and names their real fields', () => {
    const plotted = ofType('Plot').flatMap((c) => (c.paths as { value: string }[]).map((p) => p.value));
    expect(plotted.length).toBeGreaterThan(4);
    for (const p of plotted) {
      const node = resolve(p);
      expect(typeof node === 'string' ? node : node.type, p).toBe('number');
    }
    const transitions = ofType('StateTransitions').flatMap((c) =>
      (c.paths as { value: string }[]).map((p) => p.value),
    );
    for (const p of transitions) {
      const node = resolve(p);
      expect(typeof node === 'string' ? node : node.type, p).toBe('string');
    }
  });

  it('reads the log from /foxglove/log and shows raw messages of our channels', () => {
    expect(ofType('RosOut').map((c) => c.topicToRender)).toEqual(['/foxglove/log']);
    for (const c of ofType('RawMessages'))
      expect(isTopic(c.topicPath as string), String(c.topicPath)).toBe(true);
  });
});
