/**
 * A channel's JSON Schema in the form Foxglove's JSON Schema reader accepts, so that its panels can
 * read every field of our channels. That reader wants one `type` string on every node (object,
 * array, string, number, integer or boolean), a `properties` list on every object, and no `null`
 * type; a `oneOf` is only understood as an enumeration of constants. Zod writes nullable fields
 * as `type: [T, "null"]` or `anyOf: [T, {type: "null"}]` and discriminated unions as a `oneOf` of
 * objects, which the reader rejects, and it then shows the channel's raw JSON only.
 *
 * So: a nullable field becomes its non-null type and is not required (the writer leaves a null
 * field out: absent-nulls.ts), and a union of object variants becomes one object holding every variant's
 * fields, with a discriminator's constants as a string enumeration. Validation does not rely on
 * this form: messages are checked with the zod schemas on write and read.
 */
import { allowsNull } from './absent-nulls';

type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNullType = (n: unknown): boolean => isNode(n) && n.type === 'null';

/** Raised for a schema shape this conversion does not know: extend it rather than ship a channel Foxglove cannot read. */
export class UnreadableSchemaError extends Error {}

export function foxgloveReadable(schema: object, path = '$'): Node {
  const node = { ...(schema as Node) };
  if (Array.isArray(node.anyOf)) return withoutUnion(node, node.anyOf, 'anyOf', path);
  if (Array.isArray(node.oneOf) && !node.oneOf.every((m) => isNode(m) && 'const' in m))
    return withoutUnion(node, node.oneOf, 'oneOf', path);
  if (Array.isArray(node.type)) {
    const types = node.type.filter((t) => t !== 'null');
    if (types.length !== 1) throw new UnreadableSchemaError(`${path}: type ${JSON.stringify(node.type)}`);
    node.type = types[0];
  }
  if (node.type === undefined && 'const' in node)
    node.type = typeof node.const === 'number' ? 'number' : 'string';
  if (node.type === 'null') throw new UnreadableSchemaError(`${path}: a field that is always null`);
  if (node.type === 'object') {
    const properties = isNode(node.properties) ? node.properties : {};
    node.properties = Object.fromEntries(
      Object.entries(properties).map(([k, v]) => [k, foxgloveReadable(v as object, `${path}.${k}`)]),
    );
    // A nullable field may be null, which reads as missing: it is not required.
    if (Array.isArray(node.required))
      node.required = node.required.filter((k) => !allowsNull(properties[k as string]));
    // Fields of any form (a scene's registered tool's own: contract/scene.ts) have no type to
    // show: the object keeps its named properties only.
    if (isNode(node.additionalProperties) && Object.keys(node.additionalProperties).length === 0)
      delete node.additionalProperties;
    if (isNode(node.additionalProperties))
      node.additionalProperties = foxgloveReadable(node.additionalProperties, `${path}[*]`);
  }
  if (node.type === 'array' && isNode(node.items)) node.items = foxgloveReadable(node.items, `${path}[]`);
  if (node.type === undefined && !Array.isArray(node.oneOf))
    throw new UnreadableSchemaError(`${path}: no type`);
  return node;
}

/** A nullable field as its non-null type; a union of objects as one object with every field. */
function withoutUnion(node: Node, members: unknown[], key: 'anyOf' | 'oneOf', path: string): Node {
  const { [key]: _union, ...rest } = node;
  const variants = members
    .filter((m) => !isNullType(m))
    .map((m, i) => foxgloveReadable(m as object, `${path}|${i}`));
  const description = rest.description;
  if (variants.length === 1) return { ...variants[0], ...(description === undefined ? {} : { description }) };
  if (!variants.every((v) => v.type === 'object'))
    throw new UnreadableSchemaError(`${path}: a union of ${variants.map((v) => String(v.type)).join(', ')}`);
  const properties: Record<string, Node> = {};
  for (const variant of variants)
    for (const [name, field] of Object.entries(variant.properties as Record<string, Node>))
      properties[name] = properties[name] ? mergeFields(properties[name], field, `${path}.${name}`) : field;
  return { ...rest, type: 'object', properties };
}

/** One field present in several variants: the same schema, or constants that become an enumeration. */
function mergeFields(a: Node, b: Node, path: string): Node {
  const values = (n: Node): unknown[] | undefined =>
    'const' in n ? [n.const] : Array.isArray(n.enum) ? n.enum : undefined;
  const [va, vb] = [values(a), values(b)];
  if (va && vb && a.type === b.type) {
    const { const: _const, ...field } = a;
    return { ...field, enum: [...new Set([...va, ...vb])] };
  }
  if (a.type === 'object' && b.type === 'object') {
    const properties = { ...(a.properties as Record<string, Node>) };
    for (const [name, field] of Object.entries(b.properties as Record<string, Node>))
      properties[name] = properties[name] ? mergeFields(properties[name], field, `${path}.${name}`) : field;
    return { ...a, properties };
  }
  // The same kind of value in both (a number here and a number there): one field.
  if (a.type === b.type) return a;
  throw new UnreadableSchemaError(`${path}: ${String(a.type)} in one variant, ${String(b.type)} in another`);
}
