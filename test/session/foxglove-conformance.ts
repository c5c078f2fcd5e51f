/**
 * A session log as Foxglove and Lichtblick read it, checked with the ecosystem's own tools: the
 * MCAP library's reader (CRCs checked), ajv against the JSON Schema stored with each channel, and
 * the official `@foxglove/schemas` JSON Schemas for the foxglove.* channels. Every stored schema
 * is also checked against the rules of Foxglove's JSON Schema reader (foxgloveSchemaProblems).
 *
 * Those rules, as Lichtblick's reader (packages/mcap-support/src/parseJsonSchema.ts, the same as
 * Foxglove's) applies them to each object's `properties`:
 * - a root and every nested object has `type: "object"`; only its listed properties are fields;
 * - a field with `oneOf` is an enumeration: every alternative a numeric `const` (its `title`
 *   names the value); anything else in a `oneOf` refuses the schema;
 * - otherwise a field has one `type` string: boolean, string, number, integer, object or array;
 *   a type list, "null", or no type (anyOf, {}) refuses the schema, and the channel shows raw JSON
 *   at most;
 * - a string's `contentEncoding` is absent or "base64" (bytes);
 * - an array's `items` has a type string of boolean, string (no contentEncoding), number, integer
 *   or object: an array of arrays refuses the schema ("Unsupported type array for array item").
 * What the reader takes but shows badly is refused here too: a map (an object with
 * `additionalProperties` and no properties of its own) is shown as an empty object, and a numeric
 * `enum` shows bare numbers where the official schemas name each value with a `oneOf` entry.
 */
import { open } from 'node:fs/promises';
import { McapIndexedReader } from '@mcap/core';
import * as official from '@foxglove/schemas/jsonschema';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { FileReadable } from '../../src-main/session/mcap-file';

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

const SCALARS = ['boolean', 'string', 'number', 'integer'];

/** Every place in a JSON Schema that Foxglove's reader refuses or shows badly, by path. */
export function foxgloveSchemaProblems(schema: unknown, path = '$'): string[] {
  if (!isNode(schema) || schema.type !== 'object') return [`${path}: not "type": "object"`];
  const problems: string[] = [];
  const properties = isNode(schema.properties) ? schema.properties : {};
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false)
    problems.push(`${path}: a map (additionalProperties), shown as an empty object`);
  for (const [name, field] of Object.entries(properties)) {
    const at = `${path}.${name}`;
    if (!isNode(field)) {
      problems.push(`${at}: not a schema`);
      continue;
    }
    if (field.oneOf !== undefined) {
      const named =
        Array.isArray(field.oneOf) &&
        field.oneOf.every((a) => isNode(a) && typeof a.const === 'number' && typeof a.title === 'string');
      if (!named) problems.push(`${at}: a oneOf that is not an enumeration of named numeric constants`);
      continue;
    }
    problems.push(...fieldProblems(field, at));
  }
  return problems;
}

function fieldProblems(field: Node, at: string): string[] {
  if (Array.isArray(field.enum) && field.enum.some((v) => typeof v === 'number'))
    return [`${at}: a bare numeric enum (name its values with oneOf entries of const and title)`];
  switch (field.type) {
    case 'boolean':
    case 'number':
    case 'integer':
      return [];
    case 'string':
      return field.contentEncoding === undefined || field.contentEncoding === 'base64'
        ? []
        : [`${at}: contentEncoding ${JSON.stringify(field.contentEncoding)}`];
    case 'object':
      return foxgloveSchemaProblems(field, at);
    case 'array': {
      const item = field.items;
      if (!isNode(item)) return [`${at}: an array without one item schema`];
      if (item.type === 'object') return foxgloveSchemaProblems(item, `${at}[]`);
      if (item.type === 'string' && item.contentEncoding !== undefined)
        return [`${at}[]: contentEncoding on an array item`];
      if (Array.isArray(item.enum) && item.enum.some((v) => typeof v === 'number'))
        return [`${at}[]: a bare numeric enum`];
      return SCALARS.includes(item.type as string)
        ? []
        : [`${at}[]: unsupported array item type ${JSON.stringify(item.type)}`];
    }
    default:
      return [`${at}: unsupported type ${JSON.stringify(field.type)}`];
  }
}

/** The official JSON Schema of a foxglove.* schema name ("foxglove.SceneUpdate"), if there is one. */
export function officialSchema(name: string): object | undefined {
  const key = name.startsWith('foxglove.') ? name.slice('foxglove.'.length) : undefined;
  const schemas = official as unknown as Record<string, object>;
  return key !== undefined && Object.hasOwn(schemas, key) ? schemas[key] : undefined;
}

const ajv = new Ajv2020({ allErrors: true, strict: true });
const compiled = new Map<string, ValidateFunction>();
/** An ajv validator of a JSON Schema (compiled once per distinct schema text). */
export function validatorOf(schema: object): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    // Our schemas name the 2020-12 draft; the official ones name none.
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

export interface LogConformance {
  /** Messages per topic. */
  counts: Map<string, number>;
  /** Schema name per topic. */
  schemaNames: Map<string, string>;
  /** Every problem found, at most five per channel and kind, each with its topic. */
  problems: string[];
}

/**
 * Reads a log with the MCAP library and checks every channel's schema and every message, as above.
 * A validation failure is reported with the message's sequence and ajv's words.
 */
export async function checkLogConformance(file: string): Promise<LogConformance> {
  const handle = await open(file, 'r');
  const problems: string[] = [];
  const counts = new Map<string, number>();
  const schemaNames = new Map<string, string>();
  const failures = new Map<string, number>();
  const report = (key: string, problem: string) => {
    const n = (failures.get(key) ?? 0) + 1;
    failures.set(key, n);
    if (n <= 5) problems.push(problem);
  };
  try {
    const reader = await McapIndexedReader.Initialize({ readable: new FileReadable(handle) });
    const decoder = new TextDecoder();
    const checks = new Map<number, { topic: string; validators: [string, ValidateFunction][] }>();
    for (const channel of reader.channelsById.values()) {
      const schema = reader.schemasById.get(channel.schemaId);
      if (!schema) {
        problems.push(`${channel.topic}: no schema`);
        continue;
      }
      schemaNames.set(channel.topic, schema.name);
      counts.set(channel.topic, 0);
      if (channel.messageEncoding !== 'json' || schema.encoding !== 'jsonschema')
        problems.push(`${channel.topic}: ${channel.messageEncoding} messages, ${schema.encoding} schema`);
      const json = JSON.parse(decoder.decode(schema.data)) as object;
      for (const p of foxgloveSchemaProblems(json)) problems.push(`${channel.topic} (${schema.name}) ${p}`);
      const validators: [string, ValidateFunction][] = [['embedded schema', validatorOf(json)]];
      const known = officialSchema(schema.name);
      if (schema.name.startsWith('foxglove.') && !known)
        problems.push(`${channel.topic}: ${schema.name} is no schema of @foxglove/schemas`);
      if (known) validators.push([`@foxglove/schemas ${schema.name}`, validatorOf(known)]);
      checks.set(channel.id, { topic: channel.topic, validators });
    }
    for await (const m of reader.readMessages({ validateCrcs: true })) {
      const check = checks.get(m.channelId);
      if (!check) continue;
      counts.set(check.topic, (counts.get(check.topic) ?? 0) + 1);
      let message: unknown;
      try {
        message = JSON.parse(decoder.decode(m.data));
      } catch {
        report(`${check.topic} json`, `${check.topic} message ${m.sequence}: not JSON`);
        continue;
      }
      for (const [against, validate] of check.validators)
        if (!validate(message))
          report(
            `${check.topic} ${against}`,
            `${check.topic} message ${m.sequence} against the ${against}: ${ajv.errorsText(validate.errors)}`,
          );
    }
  } finally {
    await handle.close();
  }
  for (const [key, n] of failures) if (n > 5) problems.push(`${key}: ${n - 5} more like these`);
  return { counts, schemaNames, problems };
}
