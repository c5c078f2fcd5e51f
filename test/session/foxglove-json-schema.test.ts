/**
 * The JSON Schemas stored in our session logs are in the form Foxglove's JSON Schema reader
 * accepts: one type string on every node (no null, no type lists, no anyOf), properties on every
 * object, and oneOf only as an enumeration of constants. Nullable fields and discriminated unions,
 * which zod writes in forms that reader rejects, are converted; anything else is refused loudly.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { channelJsonSchema, topics } from '../../src-main/session/channels';
import { foxgloveReadable, UnreadableSchemaError } from '../../src-main/session/foxglove-json-schema';

const READER_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean']);

/** Every place in `schema` that Foxglove's reader would refuse, by path. */
function unreadable(schema: unknown, path = '$'): string[] {
  const n = schema as Record<string, unknown>;
  if (Array.isArray(n.oneOf))
    return n.oneOf.every((m) => typeof m === 'object' && m !== null && 'const' in m)
      ? []
      : [`${path}: oneOf`];
  const problems: string[] = [];
  if (typeof n.type !== 'string' || !READER_TYPES.has(n.type))
    problems.push(`${path}: type ${JSON.stringify(n.type)}`);
  if ('anyOf' in n || 'allOf' in n) problems.push(`${path}: anyOf/allOf`);
  if (n.type === 'object') {
    if (typeof n.properties !== 'object') problems.push(`${path}: object without properties`);
    for (const [k, v] of Object.entries((n.properties ?? {}) as object))
      problems.push(...unreadable(v, `${path}.${k}`));
  }
  if (n.type === 'array' && n.items) problems.push(...unreadable(n.items, `${path}[]`));
  return problems;
}

describe("channel schemas in Foxglove's reader's form", () => {
  it.each(topics)('%s', (topic) => {
    expect(unreadable(channelJsonSchema(topic))).toEqual([]);
  });

  it('the rule above catches what zod writes for nullable fields and unions', () => {
    const raw = z.toJSONSchema(
      z.object({ a: z.number().nullable(), b: z.object({ x: z.number() }).nullable() }),
    );
    expect(unreadable(raw)).toEqual(
      expect.arrayContaining(['$.a: type ["number","null"]', '$.b: type undefined']),
    );
  });

  it('reads a nullable field as its type, keeping its description', () => {
    const schema = foxgloveReadable(
      z.toJSONSchema(z.object({ age: z.number().nullable().describe('s; null: never seen') })),
    );
    expect((schema.properties as Record<string, unknown>).age).toEqual({
      type: 'number',
      description: 's; null: never seen',
    });
  });

  it('reads a discriminated union as one object with every field and the tags as an enumeration', () => {
    const union = z.discriminatedUnion('code', [
      z.object({ code: z.literal('stale'), age: z.number() }),
      z.object({ code: z.literal('frozen'), age: z.number(), frameNumber: z.number().int() }),
      z.object({ code: z.literal('abort') }),
    ]);
    const schema = foxgloveReadable(z.toJSONSchema(z.object({ reason: union })));
    const reason = (schema.properties as Record<string, Record<string, unknown>>).reason!;
    expect(reason.type).toBe('object');
    expect(reason.properties).toMatchObject({
      code: { type: 'string', enum: ['stale', 'frozen', 'abort'] },
      age: { type: 'number' },
      frameNumber: { type: 'integer' },
    });
    expect(unreadable(schema)).toEqual([]);
  });

  it('refuses a union it cannot express, naming where', () => {
    const primitives = z.toJSONSchema(z.object({ v: z.union([z.string(), z.number()]) }));
    expect(() => foxgloveReadable(primitives)).toThrow(UnreadableSchemaError);
    expect(() => foxgloveReadable(primitives)).toThrow('$.v: type ["string","number"]');
    const mixed = z.toJSONSchema(
      z.object({ v: z.union([z.object({ x: z.number() }), z.array(z.number())]) }),
    );
    expect(() => foxgloveReadable(mixed)).toThrow('$.v: a union of object, array');
  });
});
