import { describe, expect, it } from 'vitest';
import { FrameReader } from '../../src-main/robot/rtde/frame-reader';
import {
  decodeClientMessage,
  decodeControllerMessage,
  encodeClientMessage,
  encodeControllerMessage,
  RtdeProtocolError,
  type ClientMessage,
  type ControllerMessage,
  type ProtocolVersion,
} from '../../src-main/robot/rtde/messages';
import { makeRecipe, packFields, unpackFields } from '../../src-main/robot/rtde/recipe';

/** Bytes from a readable spec: numbers are bytes, strings are ASCII. */
function bytes(...parts: (number | string | number[])[]): number[] {
  const out: number[] = [];
  for (const p of parts) {
    if (typeof p === 'number') out.push(p);
    else if (typeof p === 'string') for (const c of p) out.push(c.charCodeAt(0));
    else out.push(...p);
  }
  return out;
}

/** IEEE-754 big-endian bytes of well-known doubles, written out by hand. */
const DOUBLE_125 = [0x40, 0x5f, 0x40, 0, 0, 0, 0, 0]; // 125.0
const DOUBLE_ONE = [0x3f, 0xf0, 0, 0, 0, 0, 0, 0]; // 1.0
const DOUBLE_MINUS_TWO = [0xc0, 0, 0, 0, 0, 0, 0, 0]; // -2.0
const DOUBLE_HALF = [0x3f, 0xe0, 0, 0, 0, 0, 0, 0]; // 0.5

function roundTripClient(m: ClientMessage, v: ProtocolVersion, expected: number[]): void {
  const wire = encodeClientMessage(m, v);
  expect([...wire]).toEqual(expected);
  expect(decodeClientMessage(wire[2]!, wire.subarray(3), v)).toEqual(m);
}

function roundTripController(m: ControllerMessage, v: ProtocolVersion, expected: number[]): void {
  const wire = encodeControllerMessage(m, v);
  expect([...wire]).toEqual(expected);
  expect(decodeControllerMessage(wire[2]!, wire.subarray(3), v)).toEqual(m);
}

describe('RTDE client messages', () => {
  it('REQUEST_PROTOCOL_VERSION carries a uint16 version', () => {
    roundTripClient({ kind: 'requestProtocolVersion', version: 2 }, 2, bytes(0, 5, 'V', 0, 2));
  });

  it('GET_URCONTROL_VERSION is a bare header', () => {
    roundTripClient({ kind: 'getUrcontrolVersion' }, 2, bytes(0, 3, 'v'));
  });

  it('SETUP_OUTPUTS v2 puts the frequency before the names', () => {
    const names = 'timestamp,actual_TCP_pose';
    roundTripClient(
      { kind: 'setupOutputs', frequency: 125, names: ['timestamp', 'actual_TCP_pose'] },
      2,
      bytes(0, 3 + 8 + names.length, 'O', DOUBLE_125, names),
    );
  });

  it('SETUP_OUTPUTS v1 sends names only', () => {
    roundTripClient(
      { kind: 'setupOutputs', frequency: undefined, names: ['timestamp'] },
      1,
      bytes(0, 12, 'O', 'timestamp'),
    );
  });

  it('SETUP_INPUTS sends comma-separated names', () => {
    const names = 'input_int_register_24,input_double_register_24';
    roundTripClient(
      { kind: 'setupInputs', names: ['input_int_register_24', 'input_double_register_24'] },
      2,
      bytes(0, 3 + names.length, 'I', names),
    );
  });

  it('START and PAUSE are bare headers', () => {
    roundTripClient({ kind: 'start' }, 2, bytes(0, 3, 'S'));
    roundTripClient({ kind: 'pause' }, 1, bytes(0, 3, 'P'));
  });

  it('DATA_PACKAGE from the client always leads with the recipe id', () => {
    for (const v of [1, 2] as const) {
      roundTripClient(
        { kind: 'data', recipeId: 7, fields: Uint8Array.of(1, 2) },
        v,
        bytes(0, 6, 'U', 7, 1, 2),
      );
    }
  });

  it('TEXT_MESSAGE v2 and v1 layouts', () => {
    roundTripClient(
      { kind: 'text', level: 3, message: 'hi', source: 'pp' },
      2,
      bytes(0, 3 + 1 + 2 + 1 + 2 + 1, 'M', 2, 'hi', 2, 'pp', 3),
    );
    roundTripClient({ kind: 'text', level: 1, message: 'oops', source: '' }, 1, bytes(0, 8, 'M', 1, 'oops'));
  });
});

describe('RTDE controller messages', () => {
  it('protocol version reply is a uint8 accepted flag', () => {
    roundTripController({ kind: 'protocolVersionReply', accepted: true }, 2, bytes(0, 4, 'V', 1));
    roundTripController({ kind: 'protocolVersionReply', accepted: false }, 2, bytes(0, 4, 'V', 0));
  });

  it('controller version is four uint32', () => {
    roundTripController(
      { kind: 'urcontrolVersion', major: 5, minor: 11, bugfix: 1, build: 108318 },
      2,
      bytes(0, 19, 'v', [0, 0, 0, 5], [0, 0, 0, 11], [0, 0, 0, 1], [0, 1, 0xa7, 0x1e]),
    );
  });

  it('SETUP_OUTPUTS reply: v2 leads with the recipe id, v1 carries types only', () => {
    roundTripController(
      { kind: 'setupOutputsReply', recipeId: 1, types: ['DOUBLE', 'VECTOR6D'] },
      2,
      bytes(0, 19, 'O', 1, 'DOUBLE,VECTOR6D'),
    );
    roundTripController(
      { kind: 'setupOutputsReply', recipeId: undefined, types: ['DOUBLE', 'NOT_FOUND'] },
      1,
      bytes(0, 19, 'O', 'DOUBLE,NOT_FOUND'),
    );
  });

  it('SETUP_INPUTS reply with IN_USE and id 0', () => {
    roundTripController(
      { kind: 'setupInputsReply', recipeId: 0, types: ['IN_USE', 'INT32'] },
      2,
      bytes(0, 16, 'I', 0, 'IN_USE,INT32'),
    );
  });

  it('START and PAUSE replies', () => {
    roundTripController({ kind: 'startReply', accepted: true }, 2, bytes(0, 4, 'S', 1));
    roundTripController({ kind: 'pauseReply', accepted: false }, 1, bytes(0, 4, 'P', 0));
  });

  it('DATA_PACKAGE from the controller: v2 with recipe id, v1 without', () => {
    roundTripController({ kind: 'data', recipeId: 2, fields: Uint8Array.of(9) }, 2, bytes(0, 5, 'U', 2, 9));
    roundTripController(
      { kind: 'data', recipeId: undefined, fields: Uint8Array.of(9) },
      1,
      bytes(0, 4, 'U', 9),
    );
  });

  it('rejects short payloads, trailing bytes and unknown types', () => {
    expect(() => decodeControllerMessage(118, Uint8Array.of(0, 0, 0, 5), 2)).toThrow(RtdeProtocolError);
    expect(() => decodeControllerMessage(86, Uint8Array.of(1, 0), 2)).toThrow(/trailing/);
    expect(() => decodeControllerMessage(79, new TextEncoder().encode('\x01FLOAT'), 2)).toThrow(
      /unknown field type/,
    );
    expect(() => decodeClientMessage(0x58, new Uint8Array(0), 2)).toThrow(/unknown client message type/);
  });
});

describe('data packages by recipe', () => {
  it('packs every field type big-endian with no padding', () => {
    const recipe = makeRecipe(
      3,
      ['b', 'u8', 'u32', 'u64', 'i32', 'd', 'v3', 'v6i', 'v6u'],
      ['BOOL', 'UINT8', 'UINT32', 'UINT64', 'INT32', 'DOUBLE', 'VECTOR3D', 'VECTOR6INT32', 'VECTOR6UINT32'],
    );
    expect(recipe.size).toBe(1 + 1 + 4 + 8 + 4 + 8 + 24 + 24 + 24);
    const values = [
      true,
      200,
      0x01020304,
      0x0102030405060708n,
      -2,
      1,
      [0.5, -2, 1],
      [-1, 0, 1, 2, 3, 4],
      [0xffffffff, 0, 0, 0, 0, 1],
    ];
    const packed = packFields(recipe, values);
    const expected = bytes(
      1,
      200,
      [1, 2, 3, 4],
      [1, 2, 3, 4, 5, 6, 7, 8],
      [0xff, 0xff, 0xff, 0xfe],
      DOUBLE_ONE,
      DOUBLE_HALF,
      DOUBLE_MINUS_TWO,
      DOUBLE_ONE,
      [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4],
      [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    );
    expect([...packed]).toEqual(expected);
    expect(unpackFields(recipe, packed)).toEqual(values);
  });

  it('VECTOR6D is six doubles', () => {
    const recipe = makeRecipe(1, ['actual_TCP_pose'], ['VECTOR6D']);
    expect(recipe.size).toBe(48);
    const packed = packFields(recipe, [[1, 0.5, -2, 0, 0, 125]]);
    expect([...packed]).toEqual(
      bytes(DOUBLE_ONE, DOUBLE_HALF, DOUBLE_MINUS_TWO, Array(16).fill(0), DOUBLE_125),
    );
  });

  it('refuses values that do not fit their type and packages of the wrong length', () => {
    const recipe = makeRecipe(1, ['a'], ['INT32']);
    expect(() => packFields(recipe, [2 ** 31])).toThrow(RangeError);
    expect(() => packFields(recipe, [0.5])).toThrow(RangeError);
    expect(() => packFields(recipe, [[1, 2, 3]])).toThrow(TypeError);
    expect(() => unpackFields(recipe, new Uint8Array(3))).toThrow(/3 bytes, expected 4/);
  });
});

describe('frame reassembly', () => {
  const a = encodeControllerMessage({ kind: 'data', recipeId: 1, fields: new Uint8Array(40).fill(7) }, 2);
  const b = encodeControllerMessage({ kind: 'text', level: 3, message: 'hello', source: 'x' }, 2);
  const stream = new Uint8Array([...a, ...b]);

  it('yields the same frames for every way of cutting the stream into chunks', () => {
    for (let cut1 = 0; cut1 <= stream.length; cut1 += 3) {
      for (let cut2 = cut1; cut2 <= stream.length; cut2 += 7) {
        const reader = new FrameReader();
        const frames: { type: number; payload: number[] }[] = [];
        for (const chunk of [stream.subarray(0, cut1), stream.subarray(cut1, cut2), stream.subarray(cut2)]) {
          reader.push(chunk, (f) => frames.push({ type: f.type, payload: [...f.payload] }));
        }
        expect(frames).toEqual([
          { type: 85, payload: [...a.subarray(3)] },
          { type: 77, payload: [...b.subarray(3)] },
        ]);
        expect(reader.buffered).toBe(0);
      }
    }
  });

  it('rejects a size smaller than the header', () => {
    expect(() => new FrameReader().push(Uint8Array.of(0, 2, 85), () => {})).toThrow(
      /smaller than its header/,
    );
  });
});
