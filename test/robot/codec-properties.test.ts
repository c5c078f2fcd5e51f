/**
 * Property tests of the robot-side codecs (RTDE, Dashboard, Robotiq URCap), like the NatNet fuzz
 * test: whatever is encoded decodes to itself, and whatever bytes or lines arrive (truncated,
 * garbled, random, very long) decode to a value or to the codec's own typed error, never to
 * another exception and never a hang. The draws come from one fixed seed (test/setup, or the
 * fallback here), printed in the suite name so a failure can be replayed.
 */
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DashboardRefusedError,
  parseProgramState,
  parseRemoteControl,
  parseRobotMode,
  parseSafetyStatus,
} from '../../src-main/robot/dashboard';
import {
  getCommand,
  GripperError,
  parseGetReply,
  parseSetReply,
  setCommand,
  type GripperVariable,
  type WritableVariable,
} from '../../src-main/robot/gripper';
import { LineClient, LineClientError } from '../../src-main/robot/line-client';
import { FIELD_SIZES, type FieldType, type FieldValue } from '../../src-main/robot/rtde/field-types';
import { FrameReader, type Frame } from '../../src-main/robot/rtde/frame-reader';
import {
  decodeClientMessage,
  decodeControllerMessage,
  encodeClientMessage,
  encodeControllerMessage,
  MAX_PACKET_SIZE,
  RtdeProtocolError,
  type ClientMessage,
  type ControllerMessage,
  type ProtocolVersion,
  type SetupSlot,
} from '../../src-main/robot/rtde/messages';
import { makeRecipe, packFields, unpackFields } from '../../src-main/robot/rtde/recipe';
import { ROBOT_MODES, RUNTIME_STATES, SAFETY_MODES } from '../../src-main/robot/rtde/robot-state-codes';

const FALLBACK_SEED = 20261123;
if (fc.readConfigureGlobal().seed === undefined) fc.configureGlobal({ seed: FALLBACK_SEED });
const SEED = fc.readConfigureGlobal().seed;

/** Runs `decode`; an exception other than `typed` fails the property with the input shown. */
function onlyTyped(typed: new (...a: never[]) => Error, decode: () => unknown): void {
  try {
    decode();
  } catch (err) {
    if (!(err instanceof typed)) throw new Error(`untyped ${String(err)}`, { cause: err });
  }
}

/** Truncated or byte-flipped copies of encoded bytes. */
function mutated(bytes: fc.Arbitrary<Uint8Array>): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    bytes.chain((b) => fc.nat(b.length).map((n) => b.slice(0, n))),
    bytes.chain((b) =>
      fc
        .array(fc.tuple(fc.nat(Math.max(0, b.length - 1)), fc.integer({ min: 1, max: 255 })), {
          minLength: 1,
          maxLength: 6,
        })
        .map((flips) => {
          const out = b.slice();
          for (const [at, x] of flips) if (out.length > 0) out[at % out.length]! ^= x;
          return out;
        }),
    ),
    fc.uint8Array({ maxLength: 300 }),
  );
}

// ---- RTDE ------------------------------------------------------------------------------------

const version = fc.constantFrom<ProtocolVersion>(1, 2);
const u8 = fc.integer({ min: 0, max: 0xff });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const name = fc.stringMatching(/^[A-Za-z0-9_]{1,24}$/);
const names = fc.array(name, { maxLength: 12 });
const fieldType = fc.constantFrom(...(Object.keys(FIELD_SIZES) as FieldType[]));
const slot = fc.oneof(fieldType, fc.constantFrom<SetupSlot>('NOT_FOUND', 'IN_USE'));
/** Any text, non-ASCII included; at most 4 bytes a code point keeps it within a v2 length byte. */
const text = fc.string({ unit: 'binary', maxLength: 60 });
const fields = fc.uint8Array({ maxLength: 200 });

function clientMessage(v: ProtocolVersion): fc.Arbitrary<ClientMessage> {
  return fc.oneof(
    fc.integer({ min: 0, max: 0xffff }).map((n) => ({ kind: 'requestProtocolVersion' as const, version: n })),
    fc.constant({ kind: 'getUrcontrolVersion' as const }),
    fc.record({
      kind: fc.constant('setupOutputs' as const),
      frequency: v === 2 ? fc.double() : fc.constant(undefined),
      names,
    }),
    fc.record({ kind: fc.constant('setupInputs' as const), names }),
    fc.constant({ kind: 'start' as const }),
    fc.constant({ kind: 'pause' as const }),
    fc.record({ kind: fc.constant('data' as const), recipeId: u8, fields }),
    fc.record({
      kind: fc.constant('text' as const),
      level: u8,
      message: text,
      source: v === 2 ? text : fc.constant(''),
    }),
  );
}

function controllerMessage(v: ProtocolVersion): fc.Arbitrary<ControllerMessage> {
  const outputId = v === 2 ? u8 : fc.constant(undefined);
  return fc.oneof(
    fc.boolean().map((accepted) => ({ kind: 'protocolVersionReply' as const, accepted })),
    fc.record({
      kind: fc.constant('urcontrolVersion' as const),
      major: u32,
      minor: u32,
      bugfix: u32,
      build: u32,
    }),
    fc.record({
      kind: fc.constant('setupOutputsReply' as const),
      recipeId: outputId,
      types: fc.array(slot, { maxLength: 12 }),
    }),
    fc.record({
      kind: fc.constant('setupInputsReply' as const),
      recipeId: u8,
      types: fc.array(slot, { maxLength: 12 }),
    }),
    fc.boolean().map((accepted) => ({ kind: 'startReply' as const, accepted })),
    fc.boolean().map((accepted) => ({ kind: 'pauseReply' as const, accepted })),
    fc.record({ kind: fc.constant('data' as const), recipeId: outputId, fields }),
    fc.record({
      kind: fc.constant('text' as const),
      level: u8,
      message: text,
      source: v === 2 ? text : fc.constant(''),
    }),
  );
}

const clientCase = version.chain((v) => clientMessage(v).map((m) => ({ v, m })));
const controllerCase = version.chain((v) => controllerMessage(v).map((m) => ({ v, m })));

/** One value of a field type, as the codec returns it. */
function fieldValue(t: FieldType): fc.Arbitrary<FieldValue> {
  const i32 = fc.integer({ min: -0x80000000, max: 0x7fffffff });
  switch (t) {
    case 'BOOL':
      return fc.boolean();
    case 'UINT8':
      return u8;
    case 'UINT32':
      return u32;
    case 'INT32':
      return i32;
    case 'UINT64':
      return fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
    case 'DOUBLE':
      return fc.double();
    case 'VECTOR3D':
      return fc.array(fc.double(), { minLength: 3, maxLength: 3 });
    case 'VECTOR6D':
      return fc.array(fc.double(), { minLength: 6, maxLength: 6 });
    case 'VECTOR6INT32':
      return fc.array(i32, { minLength: 6, maxLength: 6 });
    case 'VECTOR6UINT32':
      return fc.array(u32, { minLength: 6, maxLength: 6 });
  }
}

const recipeCase = fc.array(fieldType, { minLength: 1, maxLength: 10 }).chain((types) =>
  fc.tuple(...types.map(fieldValue)).map((values) => ({
    recipe: makeRecipe(
      1,
      types.map((t, i) => `v${i}`),
      types,
    ),
    values,
  })),
);

describe(`codec properties (fast-check seed ${SEED})`, () => {
  describe('RTDE', () => {
    it('client messages decode to themselves, v1 and v2', () => {
      fc.assert(
        fc.property(clientCase, ({ v, m }) => {
          const wire = encodeClientMessage(m, v);
          expect(wire.length).toBe((wire[0]! << 8) | wire[1]!);
          expect(decodeClientMessage(wire[2]!, wire.subarray(3), v)).toEqual(m);
        }),
        { numRuns: 2000 },
      );
    });

    it('controller messages decode to themselves, v1 and v2', () => {
      fc.assert(
        fc.property(controllerCase, ({ v, m }) => {
          const wire = encodeControllerMessage(m, v);
          expect(decodeControllerMessage(wire[2]!, wire.subarray(3), v)).toEqual(m);
        }),
        { numRuns: 2000 },
      );
    });

    it('refuses to encode a name list that could not come back as itself', () => {
      fc.assert(
        fc.property(version, fc.array(name), fc.constantFrom('', 'a,b', ','), (v, good, bad) => {
          const m: ClientMessage = { kind: 'setupInputs', names: [...good, bad] };
          expect(() => encodeClientMessage(m, v)).toThrow(RtdeProtocolError);
        }),
      );
    });

    it('data packages unpack to the values packed, for any recipe', () => {
      fc.assert(
        fc.property(recipeCase, ({ recipe, values }) => {
          expect(unpackFields(recipe, packFields(recipe, values))).toEqual(values);
        }),
        { numRuns: 1000 },
      );
    });

    it('the frame reader returns the same packets however the stream is chunked', () => {
      fc.assert(
        fc.property(
          fc.array(controllerCase, { minLength: 1, maxLength: 8 }),
          fc.array(fc.nat(), { maxLength: 10 }),
          (cases, cuts) => {
            const packets = cases.map(({ v, m }) => encodeControllerMessage(m, v));
            const stream = Buffer.concat(packets);
            const at = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
            const reader = new FrameReader();
            const got: { type: number; payload: number[] }[] = [];
            let from = 0;
            for (const to of [...at, stream.length]) {
              reader.push(stream.subarray(from, to), (f) =>
                got.push({ type: f.type, payload: [...f.payload] }),
              );
              from = to;
            }
            expect(got).toEqual(packets.map((p) => ({ type: p[2]!, payload: [...p.subarray(3)] })));
            expect(reader.buffered).toBe(0);
          },
        ),
        { numRuns: 500 },
      );
    });

    it('garbled or truncated messages decode or throw RtdeProtocolError, nothing else', () => {
      const encoded = fc.oneof(
        controllerCase.map(({ v, m }) => ({ v, bytes: encodeControllerMessage(m, v), controller: true })),
        clientCase.map(({ v, m }) => ({ v, bytes: encodeClientMessage(m, v), controller: false })),
      );
      fc.assert(
        fc.property(
          encoded.chain((e) => mutated(fc.constant(e.bytes)).map((bytes) => ({ ...e, bytes }))),
          version,
          ({ bytes, controller, v }, other) => {
            if (bytes.length < 3) return;
            const decode = controller ? decodeControllerMessage : decodeClientMessage;
            // The seed's own version and the other one: a version mismatch is garbage too.
            for (const pv of [v, other])
              onlyTyped(RtdeProtocolError, () => decode(bytes[2]!, bytes.subarray(3), pv));
          },
        ),
        { numRuns: 5000 },
      );
    });

    it('random byte streams give packets or RtdeProtocolError, and never buffer past one packet', () => {
      fc.assert(
        fc.property(fc.array(fc.uint8Array({ maxLength: 400 }), { maxLength: 20 }), version, (chunks, v) => {
          const reader = new FrameReader();
          const onFrame = (f: Frame): void =>
            onlyTyped(RtdeProtocolError, () => decodeControllerMessage(f.type, f.payload, v));
          try {
            for (const c of chunks) reader.push(c, onFrame);
          } catch (err) {
            expect(err).toBeInstanceOf(RtdeProtocolError);
          }
          expect(reader.buffered).toBeLessThan(MAX_PACKET_SIZE);
        }),
        { numRuns: 2000 },
      );
    });

    it('a data package of the wrong length is an RtdeProtocolError', () => {
      fc.assert(
        fc.property(recipeCase, fields, ({ recipe }, bytes) => {
          onlyTyped(RtdeProtocolError, () => unpackFields(recipe, bytes));
          if (bytes.length !== recipe.size)
            expect(() => unpackFields(recipe, bytes)).toThrow(RtdeProtocolError);
        }),
        { numRuns: 1000 },
      );
    });
  });

  describe('Dashboard', () => {
    const robotModes = Object.values(ROBOT_MODES);
    const safetyModes = Object.values(SAFETY_MODES);
    const runtimeStates = Object.values(RUNTIME_STATES);
    const blank = fc.stringMatching(/^[ \t]{0,3}$/);
    const anyCase = (s: string): fc.Arbitrary<string> =>
      fc
        .array(fc.boolean(), { minLength: s.length, maxLength: s.length })
        .map((up) => [...s].map((c, i) => (up[i] ? c.toUpperCase() : c.toLowerCase())).join(''));
    /** A program name as PolyScope shows it: no line breaks, no blanks at either end. */
    const program = fc.stringMatching(/^([\w./-]+( [\w./-]+)*)?$/);

    it("replies in the controller's words parse to what they say", () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...robotModes),
          fc.constantFrom(...safetyModes),
          fc.constantFrom('Safetystatus', 'Safetymode'),
          fc.constantFrom(...runtimeStates),
          program,
          fc.boolean(),
          blank,
          blank,
          (robot, safety, safetyWord, runtime, prog, remote, pre, post) => {
            expect(parseRobotMode(`${pre}Robotmode: ${robot}${post}`)).toBe(robot);
            expect(parseSafetyStatus(`${pre}${safetyWord}: ${safety}${post}`)).toBe(safety);
            expect(parseProgramState(`${pre}${runtime} ${prog}${post}`)).toEqual({
              state: runtime,
              program: prog,
            });
            expect(parseRemoteControl(`${pre}${String(remote)}${post}`)).toBe(remote);
          },
        ),
        { numRuns: 1000 },
      );
      fc.assert(
        fc.property(anyCase('Robotmode: running'), (r) => {
          expect(parseRobotMode(r)).toBe('RUNNING');
        }),
      );
    });

    it('any other line parses to a known value or a DashboardRefusedError', () => {
      const valid = fc.oneof(
        fc.constantFrom(...robotModes).map((m) => `Robotmode: ${m}`),
        fc.constantFrom(...safetyModes).map((m) => `Safetystatus: ${m}`),
        fc.constantFrom(...runtimeStates).map((s) => `${s} push.urp`),
        fc.constant('true'),
      );
      const line = fc.oneof(
        fc.string({ unit: 'binary', maxLength: 4096 }),
        mutated(valid.map((s) => Buffer.from(s, 'latin1'))).map((b) => Buffer.from(b).toString('latin1')),
      );
      fc.assert(
        fc.property(line, (l) => {
          onlyTyped(DashboardRefusedError, () => expect(robotModes).toContain(parseRobotMode(l)));
          onlyTyped(DashboardRefusedError, () => expect(safetyModes).toContain(parseSafetyStatus(l)));
          onlyTyped(DashboardRefusedError, () => expect(runtimeStates).toContain(parseProgramState(l).state));
          onlyTyped(DashboardRefusedError, () => parseRemoteControl(l));
          // A parse that backtracked catastrophically on one of these lines would hang the test
          // (and time it out); wall-time bounds belong in benchmarks, not here.
        }),
        { numRuns: 3000 },
      );
    });
  });

  describe('Robotiq URCap', () => {
    const variables: GripperVariable[] = [
      'ACT',
      'GTO',
      'ATR',
      'ARD',
      'FOR',
      'SPE',
      'POS',
      'STA',
      'PRE',
      'OBJ',
      'FLT',
    ];
    const writable: WritableVariable[] = ['ACT', 'GTO', 'ATR', 'ARD', 'FOR', 'SPE', 'POS'];
    const variable = fc.constantFrom(...variables);

    it('GET replies parse to the register value, SET commands carry the values in order', () => {
      fc.assert(
        fc.property(variable, u8, fc.stringMatching(/^[ \t]{0,2}$/), (v, n, pad) => {
          expect(getCommand(v)).toBe(`GET ${v}`);
          expect(parseGetReply(v, `${pad}${v} ${n}${pad}`)).toBe(n);
        }),
        { numRuns: 1000 },
      );
      fc.assert(
        fc.property(
          fc
            .uniqueArray(fc.constantFrom(...writable), { minLength: 1 })
            .chain((keys) =>
              fc.tuple(...keys.map(() => u8)).map((vals) => keys.map((k, i) => [k, vals[i]!] as const)),
            ),
          (pairs) => {
            const words = setCommand(Object.fromEntries(pairs)).split(' ');
            expect(words[0]).toBe('SET');
            const back: [string, number][] = [];
            for (let i = 1; i < words.length; i += 2) back.push([words[i]!, Number(words[i + 1])]);
            expect(back).toEqual(pairs);
            expect(() => parseSetReply('SET', ' ack ')).not.toThrow();
          },
        ),
      );
    });

    it('refuses to encode a value that is not a byte', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...writable),
          fc.oneof(
            fc.integer({ min: 256 }),
            fc.integer({ max: -1 }),
            fc.double().filter((x) => !Number.isInteger(x)),
          ),
          (k, bad) => {
            expect(() => setCommand({ [k]: bad })).toThrow(RangeError);
          },
        ),
      );
    });

    it('any reply line gives a byte 0..255 or a GripperError, nothing else', () => {
      const valid = fc.tuple(variable, u8).map(([v, n]) => `${v} ${n}`);
      const line = fc.oneof(
        fc.string({ unit: 'binary', maxLength: 4096 }),
        fc.tuple(variable, fc.bigInt({ min: 0n, max: 10n ** 30n })).map(([v, n]) => `${v} ${n}`),
        mutated(valid.map((s) => Buffer.from(s, 'latin1'))).map((b) => Buffer.from(b).toString('latin1')),
      );
      fc.assert(
        fc.property(variable, line, (v, l) => {
          try {
            const n = parseGetReply(v, l);
            expect(Number.isInteger(n) && n >= 0 && n <= 255, `${JSON.stringify(l)} -> ${n}`).toBe(true);
          } catch (err) {
            if (!(err instanceof GripperError)) throw err;
          }
          onlyTyped(GripperError, () => parseSetReply('SET POS 1', l));
        }),
        { numRuns: 3000 },
      );
    });
  });

  describe('line framing (Dashboard and URCap share it)', () => {
    let server: net.Server;
    let port = 0;
    /** What the next connection is sent, chunk by chunk. */
    let script: Buffer[] = [];
    beforeAll(async () => {
      server = net.createServer((socket) => {
        socket.on('error', () => undefined);
        const chunks = script;
        const next = (i: number): void => {
          if (i >= chunks.length) return void socket.end();
          socket.write(chunks[i]!, () => setImmediate(() => next(i + 1)));
        };
        next(0);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as net.AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    function split(bytes: Buffer, cuts: number[]): Buffer[] {
      const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
      const out: Buffer[] = [];
      let from = 0;
      for (const to of [...at, bytes.length]) {
        if (to > from) out.push(bytes.subarray(from, to));
        from = to;
      }
      return out;
    }

    it('lines come back as sent, however the stream is chunked, with \\n or \\r\\n', async () => {
      const lineText = fc
        .stringMatching(/^[^\r\n]{0,80}$/)
        .map((s) => Buffer.from(s, 'latin1').toString('latin1'));
      await fc.assert(
        fc.asyncProperty(
          fc.array(lineText, { minLength: 1, maxLength: 20 }),
          fc.constantFrom('\n', '\r\n'),
          fc.array(fc.nat(), { maxLength: 8 }),
          async (lines, end, cuts) => {
            script = split(Buffer.from(lines.map((l) => l + end).join(''), 'latin1'), cuts);
            const client = await LineClient.connect('127.0.0.1', port, 'dashboard', 2);
            try {
              const got: string[] = [];
              for (let i = 0; i < lines.length; i++) got.push(await client.readLine());
              expect(got).toEqual(lines);
            } finally {
              client.close();
            }
          },
        ),
        { numRuns: 40 },
      );
    });

    it('random byte streams give lines or a LineClientError, never a hang', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ maxLength: 6000 }),
          fc.array(fc.nat(), { maxLength: 8 }),
          async (bytes, cuts) => {
            script = split(Buffer.from(bytes), cuts);
            const client = await LineClient.connect('127.0.0.1', port, 'gripper', 0.5);
            try {
              // Read until the stream ends (the server closes): every outcome is a line or a typed error.
              for (let i = 0; i < 100; i++) {
                const line = await client.readLine().catch((err: unknown) => err);
                if (line instanceof Error) {
                  expect(line).toBeInstanceOf(LineClientError);
                  break;
                }
                expect(typeof line).toBe('string');
              }
            } finally {
              client.close();
            }
          },
        ),
        { numRuns: 40 },
      );
    });
  });
});
