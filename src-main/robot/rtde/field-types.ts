/**
 * RTDE field types: their wire sizes and how one value of each is packed (big-endian, doubles
 * IEEE-754). A recipe is an ordered list of these; a data package is the recipe's fields back to
 * back with no padding.
 */

export const FIELD_SIZES = {
  BOOL: 1,
  UINT8: 1,
  UINT32: 4,
  UINT64: 8,
  INT32: 4,
  DOUBLE: 8,
  VECTOR3D: 24,
  VECTOR6D: 48,
  VECTOR6INT32: 24,
  VECTOR6UINT32: 24,
} as const;

export type FieldType = keyof typeof FIELD_SIZES;

/** What the controller puts in a type slot instead of a type when it cannot serve a variable. */
export type FailedFieldType = 'NOT_FOUND' | 'IN_USE';

/** A value of one field: booleans, numbers, UINT64 as bigint (exact), vectors as number arrays. */
export type FieldValue = boolean | number | bigint | readonly number[];

export function isFieldType(name: string): name is FieldType {
  return Object.prototype.hasOwnProperty.call(FIELD_SIZES, name);
}

/** Writes one value at `offset` and returns the offset after it. Throws on a value of the wrong shape. */
export function writeField(view: DataView, offset: number, type: FieldType, value: FieldValue): number {
  switch (type) {
    case 'BOOL':
      view.setUint8(offset, expectBool(value) ? 1 : 0);
      return offset + 1;
    case 'UINT8':
      view.setUint8(offset, expectInt(value, 0, 0xff, type));
      return offset + 1;
    case 'UINT32':
      view.setUint32(offset, expectInt(value, 0, 0xffffffff, type));
      return offset + 4;
    case 'INT32':
      view.setInt32(offset, expectInt(value, -0x80000000, 0x7fffffff, type));
      return offset + 4;
    case 'UINT64':
      view.setBigUint64(
        offset,
        typeof value === 'bigint' ? value : BigInt(expectInt(value, 0, Number.MAX_SAFE_INTEGER, type)),
      );
      return offset + 8;
    case 'DOUBLE':
      view.setFloat64(offset, expectNumber(value, type));
      return offset + 8;
    case 'VECTOR3D':
    case 'VECTOR6D': {
      const v = expectVector(value, type === 'VECTOR3D' ? 3 : 6, type);
      for (const x of v) {
        view.setFloat64(offset, x);
        offset += 8;
      }
      return offset;
    }
    case 'VECTOR6INT32':
    case 'VECTOR6UINT32': {
      const signed = type === 'VECTOR6INT32';
      for (const x of expectVector(value, 6, type)) {
        if (signed) view.setInt32(offset, expectInt(x, -0x80000000, 0x7fffffff, type));
        else view.setUint32(offset, expectInt(x, 0, 0xffffffff, type));
        offset += 4;
      }
      return offset;
    }
  }
}

/** Reads one value at `offset`; the caller has checked that the bytes are there. */
export function readField(view: DataView, offset: number, type: FieldType): FieldValue {
  switch (type) {
    case 'BOOL':
      return view.getUint8(offset) !== 0;
    case 'UINT8':
      return view.getUint8(offset);
    case 'UINT32':
      return view.getUint32(offset);
    case 'INT32':
      return view.getInt32(offset);
    case 'UINT64':
      return view.getBigUint64(offset);
    case 'DOUBLE':
      return view.getFloat64(offset);
    case 'VECTOR3D':
    case 'VECTOR6D': {
      const n = type === 'VECTOR3D' ? 3 : 6;
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push(view.getFloat64(offset + 8 * i));
      return out;
    }
    case 'VECTOR6INT32':
    case 'VECTOR6UINT32': {
      const out: number[] = [];
      for (let i = 0; i < 6; i++)
        out.push(type === 'VECTOR6INT32' ? view.getInt32(offset + 4 * i) : view.getUint32(offset + 4 * i));
      return out;
    }
  }
}

function expectBool(v: FieldValue): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 0 || v === 1) return v === 1;
  throw new TypeError(`BOOL field needs true/false, got ${String(v)}`);
}

function expectNumber(v: FieldValue, type: FieldType): number {
  if (typeof v !== 'number') throw new TypeError(`${type} field needs a number, got ${String(v)}`);
  return v;
}

function expectInt(v: FieldValue, min: number, max: number, type: FieldType): number {
  const n = expectNumber(v, type);
  if (!Number.isInteger(n) || n < min || n > max) throw new RangeError(`${type} field out of range: ${n}`);
  return n;
}

function expectVector(v: FieldValue, n: number, type: FieldType): readonly number[] {
  if (!Array.isArray(v) || v.length !== n) throw new TypeError(`${type} field needs ${n} numbers`);
  return v as readonly number[];
}
