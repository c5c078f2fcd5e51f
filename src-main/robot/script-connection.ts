/**
 * Sending a URScript program to the controller's secondary (30002) or realtime (30003) interface
 * as the UR manual ("Connecting to URControl") asks and ur_rtde does:
 * - the program is one `def name():` ... `end` block, `def` and `end` in column 1 and nothing
 *   before or after it: any other line would be a program of its own, replacing ours;
 * - the controller sends its state as soon as a client connects. We wait for its first bytes
 *   before writing (a controller, not something else, is listening), keep reading while the
 *   connection is open, and close it with a FIN. Closing with the state unread makes the TCP stack
 *   reset the connection, and the controller may then discard the program.
 */
import net from 'node:net';
import { after } from '../common/timers';

export class ScriptFramingError extends Error {
  override name = 'ScriptFramingError';
}

/**
 * Checks the framing of a program and returns it ending in one newline; throws
 * ScriptFramingError naming what is wrong (URCL refuses such scripts too).
 */
export function frameProgram(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').replace(/\n+$/, '').split('\n');
  const first = lines[0] ?? '';
  if (!/^(def|sec) \w+\(\):\s*$/.test(first)) {
    throw new ScriptFramingError(`a program must start with "def name():" in column 1, not "${first}"`);
  }
  const last = lines[lines.length - 1] ?? '';
  if (last.trimEnd() !== 'end') {
    throw new ScriptFramingError(`a program must end with "end" in column 1, not "${last}"`);
  }
  // An `end` in column 1 closes the program there: what follows would be programs of their own.
  const early = lines.slice(1, -1).findIndex((l) => l.trimEnd() === 'end');
  if (early >= 0) throw new ScriptFramingError(`line ${early + 2}: "end" in column 1 before the last line`);
  return `${lines.join('\n')}\n`;
}

export class ScriptConnection {
  private closed = false;

  private constructor(
    private readonly socket: net.Socket,
    readonly label: string,
  ) {}

  /** Connects and resolves once the controller has sent its first bytes. */
  static open(host: string, port: number, timeout = 2): Promise<ScriptConnection> {
    const label = `script port ${host}:${port}`;
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port });
      socket.setNoDelay(true);
      const fail = (message: string): void => {
        clearTimeout(timer);
        socket.destroy();
        reject(new Error(`${label}: ${message}`));
      };
      const timer = after(timeout, () => fail(`the controller sent nothing within ${timeout} s`));
      socket.once('error', (err) => fail(err.message));
      socket.once('close', () => fail('closed by the controller'));
      socket.once('data', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        socket.removeAllListeners('close');
        // The controller's state stream: read and dropped, never left unread.
        socket.on('data', () => {});
        socket.on('error', () => socket.destroy());
        resolve(new ScriptConnection(socket, label));
      });
    });
  }

  /** Writes one framed program; resolves once the bytes are handed to the network. */
  send(program: string): Promise<void> {
    const text = frameProgram(program);
    return new Promise((resolve, reject) => {
      if (this.closed || this.socket.destroyed) {
        reject(new Error(`${this.label}: connection closed`));
        return;
      }
      this.socket.write(text, (err) =>
        err ? reject(new Error(`${this.label}: ${err.message}`)) : resolve(),
      );
    });
  }

  /**
   * Closes with a FIN and keeps reading until the controller closes its side (its state stream
   * never lands unread); after `grace` s without that the socket is dropped.
   */
  close(grace = 1): void {
    if (this.closed) return;
    this.closed = true;
    const timer = after(grace, () => this.socket.destroy());
    timer.unref();
    this.socket.once('close', () => clearTimeout(timer));
    this.socket.end();
  }
}
