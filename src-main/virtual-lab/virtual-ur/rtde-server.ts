/**
 * RTDE server of the virtual controller (port 30004), speaking v1 and v2 as a real controller does:
 * sessions start in v1 until a version request is accepted; output recipes stream at their own
 * frequency (v1: the controller rate) once started; input variables belong to one session at a
 * time (IN_USE for others), and registers 0..23 to the fieldbus when one is enabled; a client that
 * does not read its data is disconnected.
 *
 * A session that ends without a goodbye (a cable pulled: `dropClients`) is half open on the
 * controller's side: it keeps its input variables until its TCP connection times out
 * (`halfOpenHold`), so a client that reconnects meanwhile gets IN_USE for them (RTDE guide: one
 * client per input field). A client that closes its connection frees them at once.
 */
import { EventEmitter } from 'node:events';
import net from 'node:net';
import { FrameReader } from '../../robot/rtde/frame-reader';
import {
  decodeClientMessage,
  encodeControllerMessage,
  TextLevel,
  type ClientMessage,
  type ControllerMessage,
  type ProtocolVersion,
  type SetupSlot,
} from '../../robot/rtde/messages';
import { makeRecipe, packFields, unpackFields, type Recipe } from '../../robot/rtde/recipe';
import type { FieldType, FieldValue } from '../../robot/rtde/field-types';
import type { VirtualController } from './controller';
import { inputVariable, isLowRegister, outputVariable, type OutputVariable } from './rtde-variables';
import { monotonicSeconds } from '../../common/clock';

export interface RtdeServerOptions {
  /** Highest protocol version accepted (1 models an old controller). */
  maxProtocolVersion?: ProtocolVersion;
  /** An enabled fieldbus adapter (EtherNet/IP, PROFINET, MODBUS) owns input registers 0..23. */
  fieldbusOwnsLowRegisters?: boolean;
  /** Bytes queued to a client that does not read before it is dropped. */
  maxBacklogBytes?: number;
  /** s a session cut off without a goodbye keeps its input variables (its TCP timeout). */
  halfOpenHold?: number;
}

interface OutputStream {
  recipe: Recipe;
  variables: OutputVariable[];
  /** Requested frequency, Hz; a package is due each time the credit reaches the controller rate. */
  frequency: number;
  credit: number;
}

class Session {
  version: ProtocolVersion = 1;
  started = false;
  /** Cut off without a goodbye (dropClients): the controller holds its inputs for halfOpenHold. */
  halfOpen = false;
  readonly outputs = new Map<number | undefined, OutputStream>();
  readonly inputs = new Map<number, Recipe>();
  private nextRecipeId = 1;
  private readonly reader = new FrameReader();

  constructor(
    readonly socket: net.Socket,
    private readonly server: VirtualRtdeServer,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      try {
        this.reader.push(chunk, ({ type, payload }) =>
          this.onMessage(decodeClientMessage(type, payload, this.version)),
        );
      } catch (err) {
        this.text(TextLevel.EXCEPTION, (err as Error).message);
        socket.destroy();
      }
    });
    socket.on('error', () => socket.destroy());
  }

  send(m: ControllerMessage): void {
    if (!this.socket.destroyed) this.socket.write(encodeControllerMessage(m, this.version));
  }

  text(level: number, message: string): void {
    this.send({ kind: 'text', level, message, source: 'RTDE' });
  }

  private onMessage(m: ClientMessage): void {
    const c = this.server.controller;
    switch (m.kind) {
      case 'requestProtocolVersion': {
        const accepted = m.version >= 1 && m.version <= this.server.maxProtocolVersion;
        this.send({ kind: 'protocolVersionReply', accepted });
        if (accepted) this.version = m.version as ProtocolVersion;
        return;
      }
      case 'getUrcontrolVersion':
        this.send({ kind: 'urcontrolVersion', ...c.version });
        return;
      case 'setupOutputs':
        this.setupOutputs(m.names, m.frequency);
        return;
      case 'setupInputs':
        this.setupInputs(m.names);
        return;
      case 'start':
        this.started = this.outputs.size > 0 || this.inputs.size > 0;
        this.send({ kind: 'startReply', accepted: this.started });
        return;
      case 'pause':
        this.started = false;
        this.send({ kind: 'pauseReply', accepted: true });
        return;
      case 'data':
        this.onInputData(m.recipeId, m.fields);
        return;
      case 'text':
        return;
    }
  }

  private setupOutputs(names: string[], frequency: number | undefined): void {
    const types: SetupSlot[] = names.map((n) => outputVariable(n)?.type ?? 'NOT_FOUND');
    const max = this.server.controller.frequency;
    const rate = this.version === 1 ? max : (frequency ?? 0);
    const rateOk = rate >= 1 && rate <= max;
    const ok = !this.started && names.length > 0 && !types.includes('NOT_FOUND') && rateOk;
    if (!rateOk) this.text(TextLevel.ERROR, `output frequency ${frequency} Hz is outside 1..${max} Hz`);
    if (this.version === 1) {
      if (ok) this.addOutput(undefined, names, types as FieldType[], rate);
      this.send({ kind: 'setupOutputsReply', recipeId: undefined, types });
      return;
    }
    const id = ok ? this.nextRecipeId++ : 0;
    if (ok) this.addOutput(id, names, types as FieldType[], rate);
    this.send({ kind: 'setupOutputsReply', recipeId: id, types });
  }

  private addOutput(id: number | undefined, names: string[], types: FieldType[], rate: number): void {
    if (this.version === 1) this.outputs.clear();
    this.outputs.set(id, {
      recipe: makeRecipe(id, names, types),
      variables: names.map((n) => outputVariable(n)!),
      frequency: rate,
      credit: this.server.controller.frequency - rate, // first package on the next cycle
    });
  }

  private setupInputs(names: string[]): void {
    const types: SetupSlot[] = names.map((n) => {
      const v = inputVariable(n);
      if (!v) return 'NOT_FOUND';
      if (this.server.fieldbusOwnsLowRegisters && isLowRegister(n)) return 'IN_USE';
      const owner = this.server.inputOwners.get(n);
      if (owner && owner !== this) return 'IN_USE';
      return v.type;
    });
    const ok = !this.started && names.length > 0 && types.every((t) => t !== 'NOT_FOUND' && t !== 'IN_USE');
    const id = ok ? this.nextRecipeId++ : 0;
    if (ok) {
      this.inputs.set(id, makeRecipe(id, names, types as FieldType[]));
      for (const n of names) this.server.inputOwners.set(n, this);
    }
    this.send({ kind: 'setupInputsReply', recipeId: id, types });
  }

  private onInputData(recipeId: number, fields: Uint8Array): void {
    const recipe = this.inputs.get(recipeId);
    if (!recipe) {
      this.text(TextLevel.ERROR, `unknown input recipe id ${recipeId}`);
      return;
    }
    if (!this.started) return;
    const values = unpackFields(recipe, fields);
    const c = this.server.controller;
    recipe.names.forEach((n, i) => {
      inputVariable(n)!.write(c, values[i]!);
      c.noteInputWrite(n);
    });
    if (this.server.listenerCount('input') > 0) {
      this.server.emit('input', { names: recipe.names, values, receivedAt: monotonicSeconds() });
    }
  }

  /** Called every controller cycle: sends each started output recipe that is due. */
  publish(): void {
    if (!this.started) return;
    const c = this.server.controller;
    for (const out of this.outputs.values()) {
      out.credit += out.frequency;
      if (out.credit < c.frequency) continue;
      out.credit -= c.frequency;
      const fields = packFields(
        out.recipe,
        out.variables.map((v) => v.read(c)),
      );
      this.send({ kind: 'data', recipeId: out.recipe.id, fields });
    }
    if (this.socket.writableLength > this.server.maxBacklogBytes) {
      // As a real controller does with a client that stopped reading.
      this.socket.destroy();
    }
  }

  release(): void {
    for (const [name, owner] of this.server.inputOwners)
      if (owner === this) this.server.inputOwners.delete(name);
  }
}

/** One input package as it reached the controller, for logs and latency measurements. */
export interface InputWrite {
  names: readonly string[];
  values: FieldValue[];
  /** When the package was decoded, s (common/clock monotonicSeconds). */
  receivedAt: number;
}

export class VirtualRtdeServer extends EventEmitter<{ input: [InputWrite] }> {
  readonly maxProtocolVersion: ProtocolVersion;
  readonly fieldbusOwnsLowRegisters: boolean;
  readonly maxBacklogBytes: number;
  readonly halfOpenHold: number;
  readonly inputOwners = new Map<string, Session>();
  private readonly holds = new Set<NodeJS.Timeout>();
  private closing = false;
  private readonly sessions = new Set<Session>();
  private readonly server: net.Server;

  constructor(
    readonly controller: VirtualController,
    options: RtdeServerOptions = {},
  ) {
    super();
    this.maxProtocolVersion = options.maxProtocolVersion ?? 2;
    this.fieldbusOwnsLowRegisters = options.fieldbusOwnsLowRegisters ?? false;
    this.maxBacklogBytes = options.maxBacklogBytes ?? 1 << 20;
    this.halfOpenHold = options.halfOpenHold ?? 0;
    this.server = net.createServer((socket) => {
      const session = new Session(socket, this);
      this.sessions.add(session);
      socket.on('close', () => {
        this.sessions.delete(session);
        if (!session.halfOpen || this.halfOpenHold <= 0 || this.closing) {
          session.release();
          return;
        }
        const hold = setTimeout(() => {
          this.holds.delete(hold);
          session.release();
        }, this.halfOpenHold * 1000);
        hold.unref();
        this.holds.add(hold);
      });
    });
  }

  listen(port: number, host = '127.0.0.1'): Promise<number> {
    return listen(this.server, port, host);
  }

  publish(): void {
    for (const s of this.sessions) s.publish();
  }

  /**
   * Drops every client connection as a pulled cable does, keeping the server up: each session
   * keeps its inputs for `halfOpenHold` s.
   */
  dropClients(): void {
    for (const s of this.sessions) {
      s.halfOpen = true;
      s.socket.destroy();
    }
  }

  get clientCount(): number {
    return this.sessions.size;
  }

  close(): Promise<void> {
    this.closing = true;
    for (const hold of this.holds) clearTimeout(hold);
    this.holds.clear();
    this.dropClients();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Listens on host:port (0 = ephemeral) and resolves with the bound port. */
export function listen(server: net.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}
