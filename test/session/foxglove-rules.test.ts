/**
 * Foxglove's JSON Schema rules (foxglove-conformance.ts) and a session log against them: the rule
 * checker refuses what Foxglove's reader refuses or shows badly, takes the official schemas, and
 * finds nothing in any channel's stored schema; a log with every channel, null fields and
 * rollouts validates message by message with ajv (embedded and official schemas) and still reads
 * back with its nulls.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FrameTransforms, Log, SceneUpdate } from '@foxglove/schemas/jsonschema';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { channelJsonSchema, schemaName, topics } from '../../src-main/session/channels';
import { SessionLog, type LoggedMessage } from '../../src-main/session/reader';
import { SessionRecorder } from '../../src-main/session/recorder';
import { checkLogConformance, foxgloveSchemaProblems } from './foxglove-conformance';
import { planarPoses, plannerStep, recordEveryChannel, runStatus } from './sample-messages';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-foxglove-rules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const object = (properties: Record<string, unknown>) => ({ type: 'object', properties });

describe("Foxglove's JSON Schema rules", () => {
  it.each([
    [
      'an array of arrays',
      object({ r: { type: 'array', items: { type: 'array', items: { type: 'number' } } } }),
      '$.r[]',
    ],
    ['a type list', object({ a: { type: ['number', 'null'] } }), '$.a'],
    ['a nullable union', object({ b: { anyOf: [{ type: 'string' }, { type: 'null' }] } }), '$.b'],
    ['a null type', object({ c: { type: 'null' } }), '$.c'],
    ['a field without a type', object({ d: {} }), '$.d'],
    ['a map', object({ m: { type: 'object', additionalProperties: { type: 'boolean' } } }), '$.m'],
    ['a bare numeric enum', object({ level: { type: 'integer', enum: [0, 1, 2] } }), '$.level'],
    ['a oneOf of strings', object({ s: { oneOf: [{ const: 'a', title: 'A' }] } }), '$.s'],
    ['a oneOf without names', object({ n: { oneOf: [{ const: 0 }, { const: 1 }] } }), '$.n'],
    ['a union of objects', object({ u: { oneOf: [object({}), object({})] } }), '$.u'],
    ['an unknown contentEncoding', object({ h: { type: 'string', contentEncoding: 'hex' } }), '$.h'],
    [
      'bytes in an array',
      object({ h: { type: 'array', items: { type: 'string', contentEncoding: 'base64' } } }),
      '$.h[]',
    ],
    ['a root that is not an object', { type: 'array', items: { type: 'number' } }, '$'],
  ])('refuses %s', (_what, schema, at) => {
    const problems = foxgloveSchemaProblems(schema);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.startsWith(`${at}:`), problems[0]).toBe(true);
  });

  it("takes the official schemas, with named enumerations and base64 bytes, and zod's plain forms", () => {
    for (const schema of [Log, SceneUpdate, FrameTransforms])
      expect(foxgloveSchemaProblems(schema)).toEqual([]);
    const plain = z.object({
      name: z.string(),
      kind: z.enum(['a', 'b']),
      n: z.number().int(),
      ok: z.boolean(),
      list: z.array(z.object({ x: z.number() })),
      tags: z.array(z.string()),
    });
    expect(foxgloveSchemaProblems(z.toJSONSchema(plain))).toEqual([]);
  });

  it.each(topics)('the schema stored for %s', (topic) => {
    expect(foxgloveSchemaProblems(channelJsonSchema(topic))).toEqual([]);
  });

  it('stores the official schema for the foxglove.* channels', () => {
    expect(channelJsonSchema('/foxglove/scene/plan')).toEqual(SceneUpdate);
    expect(schemaName('/foxglove/log')).toBe('foxglove.Log');
    expect(channelJsonSchema('/foxglove/log')).toEqual(Log);
  });
});

describe('a log with every channel, as Foxglove reads it', () => {
  it('validates every message against its stored schema and foxglove.* against @foxglove/schemas; nulls read back', async () => {
    const rec = await SessionRecorder.create({ dir, label: 'dry', origin: 'test' });
    recordEveryChannel(rec);
    // What the issue found written as null: a pose's `repeated`, a status's `reason`, a fine
    // step's theoretical speed-up; and a step with rollouts.
    const poses = planarPoses(8, 0.6);
    rec.poses({ ...poses, pusher: { ...poses.pusher, pose: null, z: null, poseTime: null } });
    rec.event({ type: 'run', status: runStatus('running', null) });
    const step = plannerStep(1, 1.5);
    rec.event({
      type: 'planner-step',
      step: {
        ...step,
        rollouts: [step.predictions[0]!.states, step.predictions[1]!.states],
        timings: { ...step.timings, theoreticalSpeedup: null },
      },
    });
    await rec.close();

    const conformance = await checkLogConformance(rec.file);
    expect(conformance.problems).toEqual([]);
    for (const topic of topics) expect(conformance.counts.get(topic), topic).toBeGreaterThan(0);

    const log = await SessionLog.open(rec.file);
    const read: LoggedMessage[] = [];
    for await (const m of log.messages(['/mocap/poses', '/run/status', '/planner/step'])) read.push(m);
    await log.close();
    const last = <T>(topic: string) => read.filter((m) => m.topic === topic).at(-1)!.message as T;
    expect(last<{ pusher: object }>('/mocap/poses').pusher).toMatchObject({
      pose: null,
      z: null,
      poseTime: null,
      repeated: null,
    });
    expect(last<{ event: { status: object } }>('/run/status').event.status).toMatchObject({ reason: null });
    const logged = last<{ timings: object; rollouts: { states: unknown[] }[] }>('/planner/step');
    expect(logged.timings).toMatchObject({ theoreticalSpeedup: null });
    expect(logged.rollouts.map((r) => r.states.length)).toEqual([5, 5]);
  });

  it('a message with a null field would fail its stored schema (what the writer now leaves out)', () => {
    const schema = channelJsonSchema('/run/outcome');
    expect((schema as { required: string[] }).required).not.toContain('detail');
    expect(foxgloveSchemaProblems(schema)).toEqual([]);
  });
});
