/**
 * Script ports of the virtual controller (30002 secondary, 30003 realtime), as the UR manual
 * ("Connecting to URControl") describes them:
 * - on connect the controller starts sending (here: one primary-protocol version message);
 * - the byte stream is cut into programs: a line starting `def name():` or `sec name():` in
 *   column 1 opens a program that runs to the first line that is `end` in column 1; any other
 *   non-blank line is a program of its own (a trailing `name()` call replaces the program it
 *   follows, and fails: the name is not defined in it);
 * - a program is taken once it has sat for ACCEPT_DELAY on a connection that is still open; a
 *   connection closed before then (FIN or reset) discards it. The manual says a program whose
 *   sender closes without reading what the controller sent may be discarded; the model makes
 *   that "may" a "will", so a client that writes and closes fails here as it might on a real arm.
 * What the controller does with a taken program (run it, ignore it in Local mode, refuse it in a
 * stop) is the controller's business (controller.ts loadScript).
 */
import net from 'node:net';
import type { VirtualController } from './controller';
import { listen } from './rtde-server';

/** Time a program needs before the controller runs it (its compile step), s. */
export const ACCEPT_DELAY = 0.02;

/** Primary protocol: package type ROBOT_MESSAGE, robot message type VERSION. */
const ROBOT_MESSAGE = 20;
const VERSION_MESSAGE = 3;

/** The version message a controller sends first on its primary and secondary interfaces. */
export function versionMessage(c: VirtualController): Buffer {
  const name = Buffer.from('URControl', 'latin1');
  const date = Buffer.from('virtual', 'latin1');
  const body = Buffer.alloc(8 + 1 + 1 + 1 + name.length + 1 + 1 + 4 + 4 + date.length);
  let o = 0;
  o = body.writeBigUInt64BE(BigInt(Math.round(c.time * 1000)), o);
  o = body.writeInt8(-2, o); // source: the controller
  o = body.writeUInt8(VERSION_MESSAGE, o);
  o = body.writeInt8(name.length, o);
  o += name.copy(body, o);
  o = body.writeUInt8(c.version.major, o);
  o = body.writeUInt8(c.version.minor, o);
  o = body.writeInt32BE(c.version.bugfix, o);
  o = body.writeInt32BE(c.version.build, o);
  date.copy(body, o);
  const header = Buffer.alloc(5);
  header.writeInt32BE(5 + body.length, 0);
  header.writeUInt8(ROBOT_MESSAGE, 4);
  return Buffer.concat([header, body]);
}

/** Cuts a script byte stream into programs, line by line. */
export class ProgramSplitter {
  private partial = '';
  private block: string[] | undefined;

  /** Feeds bytes; returns the programs they completed, in order. */
  push(text: string): string[] {
    this.partial += text;
    const lines = this.partial.split('\n');
    this.partial = lines.pop() ?? '';
    return lines.flatMap((l) => this.line(l.replace(/\r$/, '')));
  }

  private line(line: string): string[] {
    if (this.block) {
      this.block.push(line);
      if (line.trimEnd() !== 'end') return [];
      const program = this.block.join('\n');
      this.block = undefined;
      return [program];
    }
    if (/^(def|sec) \w+\(\):/.test(line)) {
      this.block = [line];
      return [];
    }
    return line.trim() === '' ? [] : [line];
  }
}

export class ScriptServer {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(controller: VirtualController) {
    this.server = net.createServer((socket) => {
      this.sockets.add(socket);
      let closed = false;
      const splitter = new ProgramSplitter();
      const take = (programs: string[]): void => {
        for (const program of programs) {
          const timer = setTimeout(() => {
            this.timers.delete(timer);
            if (closed) controller.emit('event', 'program discarded: connection closed before it was taken');
            else controller.loadScript(program);
          }, ACCEPT_DELAY * 1000);
          this.timers.add(timer);
        }
      };
      socket.on('close', () => {
        closed = true;
        this.sockets.delete(socket);
      });
      socket.on('error', () => socket.destroy());
      socket.on('data', (chunk) => take(splitter.push(chunk.toString('utf8'))));
      socket.on('end', () => {
        closed = true;
        socket.end();
      });
      socket.write(versionMessage(controller));
    });
  }

  listen(port: number, host = '127.0.0.1'): Promise<number> {
    return listen(this.server, port, host);
  }

  close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
