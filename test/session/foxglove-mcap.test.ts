/**
 * A session log as Foxglove (or any MCAP reader) sees it, checked with the MCAP library's own
 * reader: every channel has a JSON Schema that parses, every message decodes (CRCs checked) and
 * validates against the schema stored in the file as it is written (not against our zod schemas:
 * the writer leaves null fields out), the Foxglove
 * channels carry the well-known schema names and the fields Foxglove requires, and the frames
 * and scene entities say what they should.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { McapIndexedReader } from '@mcap/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FileReadable } from '../../src-main/session/mcap-file';
import { SessionRecorder } from '../../src-main/session/recorder';
import { topics } from '../../src-main/session/channels';
import { FRAMES } from '../../src-main/session/foxglove';
import {
  mocapFrame,
  plannerStep,
  recordEveryChannel,
  robotState,
  sampleScene,
  sampleSetup,
  stateEvent,
} from './sample-messages';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-foxglove-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Decoded {
  topic: string;
  schemaName: string;
  message: Record<string, unknown>;
}
const decoded: Decoded[] = [];
const schemas = new Map<string, { name: string; encoding: string; json: unknown }>();
const channelTopics: string[] = [];

beforeAll(async () => {
  const rec = await SessionRecorder.create({ dir, label: 'dry', origin: 'test' });
  recordEveryChannel(rec);
  for (let i = 1; i <= 3; i++) {
    rec.mocapFrame(mocapFrame(7 + i, 0.5 + i / 120));
    rec.robotState(robotState(0.5 + i / 500));
    rec.event(stateEvent(0.5 + i / 30));
    rec.event({ type: 'planner-step', step: plannerStep(i, 0.5 + i) });
    await new Promise((r) => setTimeout(r, 40)); // past the 30 Hz limit of the derived views
  }
  await rec.close();

  const handle = await open(rec.file, 'r');
  try {
    const reader = await McapIndexedReader.Initialize({ readable: new FileReadable(handle) });
    const decoder = new TextDecoder();
    for (const channel of reader.channelsById.values()) {
      channelTopics.push(channel.topic);
      const schema = reader.schemasById.get(channel.schemaId)!;
      expect(channel.messageEncoding).toBe('json');
      schemas.set(channel.topic, {
        name: schema.name,
        encoding: schema.encoding,
        json: JSON.parse(decoder.decode(schema.data)),
      });
    }
    for await (const m of reader.readMessages({ validateCrcs: true })) {
      const channel = reader.channelsById.get(m.channelId)!;
      decoded.push({
        topic: channel.topic,
        schemaName: schemas.get(channel.topic)!.name,
        message: JSON.parse(decoder.decode(m.data)) as Record<string, unknown>,
      });
    }
  } finally {
    await handle.close();
  }
});

const of = (topic: string) => decoded.filter((d) => d.topic === topic).map((d) => d.message);

type JsonSchema = {
  type?: unknown;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  oneOf?: { const?: unknown }[];
  contentEncoding?: string;
};

/** What Foxglove's JSON Schema reader would refuse in a schema (its field rules), as paths. */
function foxgloveReadable(schema: JsonSchema, at: string): string[] {
  if (schema.type !== 'object' || !schema.properties) return [`${at}: not an object with properties`];
  return Object.entries(schema.properties).flatMap(([name, field]) => {
    const path = `${at}.${name}`;
    if (field.oneOf) return field.oneOf.every((a) => typeof a.const === 'number') ? [] : [path];
    switch (field.type) {
      case 'boolean':
      case 'number':
      case 'integer':
        return [];
      case 'string':
        return field.contentEncoding === undefined || field.contentEncoding === 'base64' ? [] : [path];
      case 'object':
        return foxgloveReadable(field, path);
      case 'array': {
        const item = field.items;
        if (item?.type === 'object') return foxgloveReadable(item, `${path}[]`);
        return ['boolean', 'string', 'number', 'integer'].includes(item?.type as string) ? [] : [`${path}[]`];
      }
      default:
        return [path];
    }
  });
}

describe('session log in MCAP, read with the MCAP library', () => {
  it('has a parsing JSON Schema per channel, and every message validates against it', () => {
    expect(channelTopics.sort()).toEqual([...topics].sort());
    const validators = new Map(
      [...schemas].map(([topic, s]) => {
        expect(s.encoding, topic).toBe('jsonschema');
        return [topic, z.fromJSONSchema(s.json as Parameters<typeof z.fromJSONSchema>[0])];
      }),
    );
    for (const topic of topics) expect(of(topic).length, topic).toBeGreaterThan(0);
    for (const d of decoded) {
      const r = validators.get(d.topic)!.safeParse(d.message);
      expect(r.success, `${d.topic}: ${r.error?.message}`).toBe(true);
    }
  });

  it("names Foxglove's well-known schemas and carries the fields Foxglove requires", () => {
    expect(schemas.get('/foxglove/log')?.name).toBe('foxglove.Log');
    expect(schemas.get('/foxglove/tf')?.name).toBe('foxglove.FrameTransforms');
    for (const t of ['/foxglove/scene/table', '/foxglove/scene/objects', '/foxglove/scene/plan'])
      expect(schemas.get(t)?.name).toBe('foxglove.SceneUpdate');
    expect(schemas.get('/robot/state')?.name).toBe('parapush.robot_state');

    type Schema = { required?: string[]; properties?: Record<string, Schema>; items?: Schema };
    const required = (topic: string, ...at: string[]): string[] => {
      let s = schemas.get(topic)!.json as Schema;
      for (const key of at) s = key === '[]' ? s.items! : s.properties![key]!;
      return s.required ?? [];
    };
    // Foxglove's definitions (foxglove.Log, FrameTransform, SceneEntity, primitives).
    expect(required('/foxglove/log')).toEqual(
      expect.arrayContaining(['timestamp', 'level', 'message', 'name', 'file', 'line']),
    );
    expect(required('/foxglove/tf', 'transforms', '[]')).toEqual(
      expect.arrayContaining(['timestamp', 'parent_frame_id', 'child_frame_id', 'translation', 'rotation']),
    );
    expect(required('/foxglove/scene/table')).toEqual(expect.arrayContaining(['deletions', 'entities']));
    expect(required('/foxglove/scene/table', 'entities', '[]')).toEqual(
      expect.arrayContaining([
        'timestamp',
        'frame_id',
        'id',
        'lifetime',
        'frame_locked',
        'metadata',
        'arrows',
        'cubes',
        'spheres',
        'cylinders',
        'lines',
        'triangles',
        'texts',
        'models',
      ]),
    );
    expect(required('/foxglove/scene/table', 'entities', '[]', 'lines', '[]')).toEqual(
      expect.arrayContaining([
        'type',
        'pose',
        'thickness',
        'scale_invariant',
        'points',
        'color',
        'colors',
        'indices',
      ]),
    );
    expect(required('/foxglove/scene/table', 'entities', '[]', 'cylinders', '[]')).toEqual(
      expect.arrayContaining(['pose', 'size', 'bottom_scale', 'top_scale', 'color']),
    );
    // Foxglove's JSON Schema reader (its rules: an object lists its properties, every property
    // has a plain type or numeric oneOf alternatives, arrays say their item type) takes these.
    for (const t of [
      '/foxglove/log',
      '/foxglove/tf',
      '/foxglove/scene/table',
      '/foxglove/scene/objects',
      '/foxglove/scene/plan',
      '/robot/state',
      '/scene/state',
    ])
      expect(foxgloveReadable(schemas.get(t)!.json as JsonSchema, t), t).toEqual([]);
    // Foxglove messages are the message only: no stamps of ours.
    for (const d of decoded.filter((d) => d.topic.startsWith('/foxglove/')))
      expect(d.message).not.toHaveProperty('mono');
  });

  it('logs the event log, the frame tree and the scene', () => {
    const lines = of('/foxglove/log') as {
      level: number;
      name: string;
      message: string;
      timestamp: object;
    }[];
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 3, name: 'supervisor', message: 'LIMIT: speed limited to 100 mm/s' }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 3, name: 'supervisor', message: 'limited' }),
    );

    const transforms = of('/foxglove/tf').flatMap((m) => m.transforms as Record<string, unknown>[]);
    const frame = (child: string) => transforms.find((t) => t.child_frame_id === child);
    expect(frame(FRAMES.mocap)).toMatchObject({
      parent_frame_id: FRAMES.table,
      translation: { x: 0.1, y: -0.2, z: 0 },
    });
    // The base sits where p_base = Rz(90 deg) p_table + (0.5, 0, 0) puts it: (0, 0.5) on the table.
    const base = frame(FRAMES.robotBase) as { translation: { x: number; y: number } };
    expect(base.translation.x).toBeCloseTo(0, 9);
    expect(base.translation.y).toBeCloseTo(0.5, 9);
    expect(frame(FRAMES.tool)).toMatchObject({ parent_frame_id: FRAMES.robotBase });
    expect(frame('mocap/pusher')).toMatchObject({ parent_frame_id: FRAMES.mocap });
    expect(sampleSetup.mocap.upAxis).toBe('y');

    const ids = (topic: string) =>
      new Set(of(topic).flatMap((m) => (m.entities as { id: string }[]).map((e) => e.id)));
    expect(ids('/foxglove/scene/table')).toEqual(
      new Set(['table', 'goal', ...sampleScene.obstacles.map((o) => `obstacle/${o.id}`)]),
    );
    expect(ids('/foxglove/scene/objects')).toEqual(
      new Set(['pusher', ...sampleScene.sliders.map((s) => `slider/${s.id}`)]),
    );
    expect(ids('/foxglove/scene/plan')).toEqual(
      new Set(['plan/pusher', 'prediction/k=0', 'prediction/k=1', 'prediction/k=2']),
    );
    // Each plan replaces the one before.
    for (const m of of('/foxglove/scene/plan'))
      expect(m.deletions).toEqual([expect.objectContaining({ type: 1 })]);
  });
});
