/**
 * One RTDE connection (TCP 30004): protocol negotiation (v2, falling back to v1), controller
 * version, recipe setup, start/pause, input packages out and output packages in.
 *
 * The read loop is the socket's 'data' handler: frames are reassembled and decoded synchronously
 * there and handed to listeners, so reading never waits behind requests, timers or other work on
 * this thread (the planner runs in worker processes). Requests are answered in order; a reply is
 * matched to the oldest pending request of the same message type, so output packages that arrive
 * between a request and its reply never confuse the pairing.
 */
import { EventEmitter } from 'node:events';
import net from 'node:net';
import type { FieldType, FieldValue } from './field-types';
import { FrameReader } from './frame-reader';
import {
  decodeControllerMessage,
  encodeClientMessage,
  type ClientMessage,
  type ControllerMessage,
  type ProtocolVersion,
  type TextMessage,
} from './messages';
import { makeRecipe, packFields, unpackFields, type Recipe } from './recipe';
import { failedVariables, RtdeSetupError } from './setup-errors';
import { monotonicSeconds } from '../../common/clock';

export interface ControllerVersion {
  major: number;
  minor: number;
  bugfix: number;
  build: number;
}

export interface OutputPackage {
  recipe: Recipe;
  values: FieldValue[];
  /** When the bytes were decoded, s (common/clock monotonicSeconds). */
  receivedAt: number;
}

interface Pending {
  type: number;
  resolve: (m: ControllerMessage) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

export interface RtdeClientOptions {
  host: string;
  port?: number;
  /** Connect and per-request timeout, s. */
  timeout?: number;
}

export class RtdeConnectionError extends Error {
  override name = 'RtdeConnectionError';
}

type Events = {
  output: [OutputPackage];
  text: [TextMessage];
  close: [Error | undefined];
};

/** Controller major version < 5 is a CB3 (125 Hz); 5 and later an e-Series (500 Hz). */
export function maxFrequencyOf(version: ControllerVersion): number {
  return version.major < 5 ? 125 : 500;
}

export class RtdeClient extends EventEmitter<Events> {
  private readonly reader = new FrameReader();
  private readonly pending: Pending[] = [];
  private readonly outputRecipes = new Map<number | undefined, Recipe>();
  private closed = false;
  protocolVersion: ProtocolVersion = 1;

  private constructor(
    private readonly socket: net.Socket,
    private readonly timeout: number,
  ) {
    super();
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('error', (err) => this.shutdown(err));
    socket.on('close', () => this.shutdown(new RtdeConnectionError('connection closed by the controller')));
  }

  static connect(options: RtdeClientOptions): Promise<RtdeClient> {
    const { host, port = 30004, timeout = 2 } = options;
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new RtdeConnectionError(`RTDE ${host}:${port}: no connection within ${timeout} s`));
      }, timeout * 1000);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new RtdeClient(socket, timeout));
      });
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(new RtdeConnectionError(`RTDE ${host}:${port}: ${err.message}`));
      });
    });
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Asks for v2, falls back to v1; returns the version in use. */
  async negotiateProtocol(): Promise<ProtocolVersion> {
    for (const version of [2, 1] as const) {
      const reply = await this.request({ kind: 'requestProtocolVersion', version }, 'protocolVersionReply');
      if (reply.accepted) {
        this.protocolVersion = version;
        return version;
      }
    }
    throw new RtdeConnectionError('the controller accepts neither RTDE protocol v2 nor v1');
  }

  async controllerVersion(): Promise<ControllerVersion> {
    const { major, minor, bugfix, build } = await this.request(
      { kind: 'getUrcontrolVersion' },
      'urcontrolVersion',
    );
    return { major, minor, bugfix, build };
  }

  /**
   * Sets up an output recipe. v2 streams at `frequency`; v1 streams at the controller's own rate.
   * Throws RtdeSetupError naming every variable the controller does not know.
   */
  async setupOutputs(names: readonly string[], frequency: number): Promise<Recipe> {
    const reply = await this.request(
      {
        kind: 'setupOutputs',
        frequency: this.protocolVersion === 2 ? frequency : undefined,
        names: [...names],
      },
      'setupOutputsReply',
    );
    const failed = failedVariables(names, reply.types, 'output');
    if (failed.length > 0) throw new RtdeSetupError('output', failed);
    if (reply.types.length !== names.length || (this.protocolVersion === 2 && reply.recipeId === 0)) {
      throw new RtdeSetupError('output', [], `controller refused the recipe (frequency ${frequency} Hz?)`);
    }
    const recipe = makeRecipe(reply.recipeId, names, reply.types as FieldType[]);
    if (this.protocolVersion === 1) this.outputRecipes.clear();
    this.outputRecipes.set(recipe.id, recipe);
    return recipe;
  }

  /** Sets up an input recipe. Throws RtdeSetupError naming NOT_FOUND and IN_USE variables. */
  async setupInputs(names: readonly string[]): Promise<Recipe> {
    const reply = await this.request({ kind: 'setupInputs', names: [...names] }, 'setupInputsReply');
    const failed = failedVariables(names, reply.types, 'input');
    if (failed.length > 0) throw new RtdeSetupError('input', failed);
    if (reply.recipeId === 0 || reply.types.length !== names.length) {
      throw new RtdeSetupError('input', [], 'controller refused the recipe');
    }
    return makeRecipe(reply.recipeId, names, reply.types as FieldType[]);
  }

  async start(): Promise<void> {
    const reply = await this.request({ kind: 'start' }, 'startReply');
    if (!reply.accepted) throw new RtdeConnectionError('the controller refused to start streaming');
  }

  async pause(): Promise<void> {
    const reply = await this.request({ kind: 'pause' }, 'pauseReply');
    if (!reply.accepted) throw new RtdeConnectionError('the controller refused to pause streaming');
  }

  /**
   * Writes one input package. Returns once the bytes are handed to the kernel (socket.write is
   * synchronous up to the kernel buffer), so a stop is on the wire without waiting on anything else.
   */
  send(recipe: Recipe, values: readonly FieldValue[]): void {
    if (this.closed) throw new RtdeConnectionError('RTDE connection is closed');
    if (recipe.id === undefined) throw new Error('input recipes always have an id');
    this.write({ kind: 'data', recipeId: recipe.id, fields: packFields(recipe, values) });
  }

  /** Closes after flushing what was written (a last stop must reach the controller). */
  close(): void {
    this.shutdown(undefined);
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 200).unref();
  }

  private write(m: ClientMessage): void {
    this.socket.write(encodeClientMessage(m, this.protocolVersion));
  }

  private request<K extends ControllerMessage['kind']>(
    m: ClientMessage,
    expect: K,
  ): Promise<Extract<ControllerMessage, { kind: K }>> {
    if (this.closed) return Promise.reject(new RtdeConnectionError('RTDE connection is closed'));
    const bytes = encodeClientMessage(m, this.protocolVersion);
    const type = bytes[2]!;
    return new Promise((resolve, reject) => {
      const entry: Pending = {
        type,
        resolve: (reply) => {
          if (reply.kind === expect) resolve(reply as Extract<ControllerMessage, { kind: K }>);
          else reject(new RtdeConnectionError(`expected ${expect}, got ${reply.kind}`));
        },
        reject,
        timer: setTimeout(() => {
          this.pending.splice(this.pending.indexOf(entry), 1);
          reject(new RtdeConnectionError(`no reply to ${m.kind} within ${this.timeout} s`));
        }, this.timeout * 1000),
      };
      this.pending.push(entry);
      this.socket.write(bytes);
    });
  }

  private onData(chunk: Buffer): void {
    try {
      this.reader.push(chunk, ({ type, payload }) => this.onFrame(type, payload));
    } catch (err) {
      this.socket.destroy();
      this.shutdown(err as Error);
    }
  }

  private onFrame(type: number, payload: Uint8Array): void {
    const m = decodeControllerMessage(type, payload, this.protocolVersion);
    if (m.kind === 'text') {
      this.emit('text', m);
      return;
    }
    if (m.kind === 'data') {
      const recipe = this.outputRecipes.get(m.recipeId);
      if (!recipe) return; // a package for a recipe replaced since; nothing to decode it with
      this.emit('output', { recipe, values: unpackFields(recipe, m.fields), receivedAt: monotonicSeconds() });
      return;
    }
    const i = this.pending.findIndex((p) => p.type === type);
    if (i < 0) return;
    const [p] = this.pending.splice(i, 1);
    clearTimeout(p!.timer);
    p!.resolve(m);
  }

  private shutdown(err: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.pending.splice(0)) {
      clearTimeout(p.timer);
      p.reject(err ?? new RtdeConnectionError('RTDE connection closed'));
    }
    this.emit('close', err);
  }
}
