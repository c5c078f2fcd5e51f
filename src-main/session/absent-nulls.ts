/**
 * A null field of our channels is left out of the log rather than written as null. Foxglove's
 * JSON Schema reader has no null type, so the schema stored in the file makes a nullable field
 * optional (foxgloveReadable), and a message holding `"reason": null` would break it. The writer
 * drops null fields (withoutNulls); the reader puts them back (withNulls) from the channel's own
 * JSON Schema, where such a field is nullable and required, before zod checks the message.
 */

type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNullType = (n: unknown): boolean => isNode(n) && n.type === 'null';

/** Whether a JSON Schema node allows null (`type: [T, "null"]` or a union with a null member). */
export function allowsNull(n: unknown): boolean {
  return (
    isNode(n) &&
    ((Array.isArray(n.type) && n.type.includes('null')) ||
      [n.anyOf, n.oneOf].some((u) => Array.isArray(u) && u.some(isNullType)))
  );
}

/** Whether any field of a JSON Schema allows null: only such channels need the replacer below. */
export function hasNullableField(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(hasNullableField);
  if (!isNode(schema)) return false;
  return allowsNull(schema) || Object.values(schema).some(hasNullableField);
}

/**
 * A JSON.stringify replacer that leaves out object fields whose value is null. No channel has a
 * nullable array item, so an array never holds one (JSON.stringify would write it as null).
 */
export function withoutNulls(this: unknown, _key: string, value: unknown): unknown {
  return value === null ? undefined : value;
}

/**
 * The message (parsed JSON, changed in place) with every left-out nullable field of `schema` set
 * back to null. Fields the schema lets be absent stay absent.
 */
export function withNulls(schema: unknown, value: unknown): unknown {
  fill(schema, value);
  return value;
}

function fill(schema: unknown, value: unknown): void {
  if (!isNode(schema) || value === null || typeof value !== 'object') return;
  const union = [schema.anyOf, schema.oneOf].find(Array.isArray) as unknown[] | undefined;
  if (union) {
    for (const member of matchingVariants(union, value)) fill(member, value);
    return;
  }
  if (Array.isArray(value)) {
    if (isNode(schema.items)) for (const item of value) fill(schema.items, item);
    return;
  }
  const record = value as Node;
  if (isNode(schema.properties)) {
    const required = Array.isArray(schema.required) ? schema.required : [];
    for (const [name, field] of Object.entries(schema.properties)) {
      if (record[name] === undefined) {
        if (required.includes(name) && allowsNull(field)) record[name] = null;
      } else fill(field, record[name]);
    }
  }
  if (isNode(schema.additionalProperties))
    for (const v of Object.values(record)) fill(schema.additionalProperties, v);
}

/**
 * The object members of a union the value belongs to: those whose constant fields (a
 * discriminator such as `kind` or `type`) all match it; a union without constants has to have one
 * object member to be filled.
 */
function matchingVariants(members: unknown[], value: object): Node[] {
  const objects = members.filter((m): m is Node => isNode(m) && !isNullType(m) && isNode(m.properties));
  const constants = (m: Node) =>
    Object.entries(m.properties as Node).filter(([, f]) => isNode(f) && 'const' in f) as [string, Node][];
  const tagged = objects.filter((m) => constants(m).length > 0);
  if (tagged.length === 0) return objects.length === 1 ? objects : [];
  const record = value as Node;
  return tagged.filter((m) => constants(m).every(([name, f]) => record[name] === f.const));
}
