/**
 * A TCP client for request/reply line protocols (UR Dashboard, Robotiq URCap): one request line,
 * one reply, strictly in order. A reply is a line unless the request names its own framing
 * (`ReplyFraming`: the URCap's `ack` comes without a newline). Requests queue behind each other so
 * replies cannot be mismatched, and each has a timeout.
 *
 * The peer is not trusted to behave: a line longer than MAX_LINE_BYTES (no newline in sight)
 * drops the link with a LineClientError instead of buffering without bound, and replies nobody
 * asked for are kept only up to MAX_UNREAD_LINES.
 */
import net from 'node:net';

/** Dashboard and URCap replies are a few dozen bytes; 4 KiB is far beyond any honest line. */
export const MAX_LINE_BYTES = 4096;
/** Unsolicited lines kept for readLine(); a server that floods them is not one we understand. */
export const MAX_UNREAD_LINES = 64;

export class LineClientError extends Error {
  override name = 'LineClientError';
}

/**
 * Cuts one reply off the front of the bytes received so far: the reply and the number of
 * characters it used, or undefined while it is incomplete.
 */
export type ReplyFraming = (buffered: string) => [reply: string, used: number] | undefined;

/** A line ending in `\n` (a `\r` before it dropped). */
export const lineReply: ReplyFraming = (b) => {
  const nl = b.indexOf('\n');
  return nl < 0 ? undefined : [b.slice(0, nl).replace(/\r$/, ''), nl + 1];
};

interface Waiter {
  resolve: (line: string) => void;
  reject: (err: Error) => void;
  framing: ReplyFraming;
}

export class LineClient {
  private buffered = '';
  private readonly lines: string[] = [];
  private readonly waiters: Waiter[] = [];
  private chain: Promise<unknown> = Promise.resolve();
  private closedWith: Error | undefined;
  private closeListeners: ((err: Error) => void)[] = [];

  private constructor(
    private readonly socket: net.Socket,
    readonly label: string,
    /** Connect and per-reply timeout, s. */
    private readonly timeout: number,
    /** Drop blank lines nobody asked for, instead of keeping them for readLine(). */
    private readonly dropBlankLines: boolean,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('error', (err) => this.fail(new LineClientError(`${label}: ${err.message}`)));
    socket.on('close', () => this.fail(new LineClientError(`${label}: connection closed`)));
  }

  private onData(chunk: Buffer): void {
    if (this.closedWith) return;
    this.buffered += chunk.toString('latin1');
    this.pump();
  }

  /** Hands complete replies to waiters in order; replies nobody waits for are kept as lines. */
  private pump(): void {
    for (;;) {
      const w = this.waiters[0];
      const got = (w?.framing ?? lineReply)(this.buffered);
      if (!got) break;
      const [reply, used] = got;
      this.buffered = this.buffered.slice(used);
      if (reply.length > MAX_LINE_BYTES) return this.drop(`reply line longer than ${MAX_LINE_BYTES} bytes`);
      if (w) {
        this.waiters.shift();
        w.resolve(reply);
      } else if (reply === '' && this.dropBlankLines) {
        // The newline a device may send after a bare reply (a URCap's `ack`) says nothing.
      } else if (this.lines.length >= MAX_UNREAD_LINES)
        return this.drop(`more than ${MAX_UNREAD_LINES} lines nobody asked for`);
      else this.lines.push(reply);
    }
    // latin1: one character per byte, so the length is the byte count.
    if (this.buffered.length > MAX_LINE_BYTES) this.drop(`no line end within ${MAX_LINE_BYTES} bytes`);
  }

  /** The peer broke the protocol: close the link with the reason, so every waiter learns it. */
  private drop(reason: string): void {
    this.buffered = '';
    this.fail(new LineClientError(`${this.label}: ${reason}; link dropped`));
    this.socket.destroy();
  }

  private fail(err: Error): void {
    if (this.closedWith) return;
    this.closedWith = err;
    for (const w of this.waiters.splice(0)) w.reject(err);
    for (const l of this.closeListeners) l(err);
  }

  static connect(
    host: string,
    port: number,
    label: string,
    timeout = 2,
    options: { dropBlankLines?: boolean } = {},
  ): Promise<LineClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new LineClientError(`${label} ${host}:${port}: no connection within ${timeout} s`));
      }, timeout * 1000);
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(new LineClientError(`${label} ${host}:${port}: ${err.message}`));
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new LineClient(socket, label, timeout, options.dropBlankLines ?? false));
      });
    });
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  onClose(listener: (err: Error) => void): void {
    this.closeListeners.push(listener);
  }

  /** The next line the server sends on its own (a welcome line), or the next reply framed so. */
  readLine(framing: ReplyFraming = lineReply): Promise<string> {
    const ready = this.lines.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.closedWith) return Promise.reject(this.closedWith);
    return new Promise((resolve, reject) => {
      const w: Waiter = { resolve, reject, framing };
      this.waiters.push(w);
      if (this.waiters.length === 1) this.pump();
      setTimeout(() => {
        const i = this.waiters.indexOf(w);
        if (i < 0) return;
        this.waiters.splice(i, 1);
        reject(new LineClientError(`${this.label}: no reply within ${this.timeout} s`));
        // A late reply would now pair with the wrong request: the stream is unusable.
        this.socket.destroy();
      }, this.timeout * 1000).unref();
    });
  }

  /** Sends one line and resolves with the reply (a line by default); requests run one at a time. */
  request(line: string, framing: ReplyFraming = lineReply): Promise<string> {
    const run = async (): Promise<string> => {
      if (this.closedWith) throw this.closedWith;
      this.socket.write(`${line}\n`);
      return this.readLine(framing);
    };
    const result = this.chain.then(run, run);
    this.chain = result.catch(() => undefined);
    return result;
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }
}
