/**
 * Recipes: the ordered variable lists that a client sets up with the controller, and the packing of
 * data packages by recipe. Output packages (controller -> client) carry the recipe id from protocol
 * v2 on; input packages (client -> controller) always carry it.
 */
import { FIELD_SIZES, readField, writeField, type FieldType, type FieldValue } from './field-types';
import { RtdeProtocolError } from './messages';

export interface Recipe {
  /** Controller-assigned id; undefined for a v1 output recipe (v1 packages carry no id). */
  readonly id: number | undefined;
  readonly names: readonly string[];
  readonly types: readonly FieldType[];
  /** Bytes of the packed fields, recipe id excluded. */
  readonly size: number;
}

export function makeRecipe(
  id: number | undefined,
  names: readonly string[],
  types: readonly FieldType[],
): Recipe {
  if (names.length !== types.length)
    throw new Error(`recipe has ${names.length} names but ${types.length} types`);
  return { id, names, types, size: types.reduce((sum, t) => sum + FIELD_SIZES[t], 0) };
}

/** Packs values (in recipe order) into the fields part of a data package. */
export function packFields(recipe: Recipe, values: readonly FieldValue[]): Uint8Array {
  if (values.length !== recipe.types.length) {
    throw new Error(
      `recipe ${recipe.id ?? '(v1)'} needs ${recipe.types.length} values, got ${values.length}`,
    );
  }
  const bytes = new Uint8Array(recipe.size);
  const view = new DataView(bytes.buffer);
  let offset = 0;
  recipe.types.forEach((t, i) => {
    offset = writeField(view, offset, t, values[i]!);
  });
  return bytes;
}

/**
 * Unpacks the fields part of a data package; throws RtdeProtocolError (bytes from the network, not
 * a caller's mistake) if its length does not match the recipe.
 */
export function unpackFields(recipe: Recipe, fields: Uint8Array): FieldValue[] {
  if (fields.length !== recipe.size) {
    throw new RtdeProtocolError(
      `data package for recipe ${recipe.id ?? '(v1)'} has ${fields.length} bytes, expected ${recipe.size}`,
    );
  }
  const view = new DataView(fields.buffer, fields.byteOffset, fields.byteLength);
  const out: FieldValue[] = [];
  let offset = 0;
  for (const t of recipe.types) {
    out.push(readField(view, offset, t));
    offset += FIELD_SIZES[t];
  }
  return out;
}

/** Names paired with values, for callers that want `record.actual_TCP_pose`. */
export function toRecord(recipe: Recipe, values: readonly FieldValue[]): Record<string, FieldValue> {
  const r: Record<string, FieldValue> = {};
  recipe.names.forEach((n, i) => (r[n] = values[i]!));
  return r;
}
