/**
 * A TCP server for line protocols (dashboard, Robotiq URCap): an optional welcome line, then one
 * reply per request line. Replies are computed synchronously from the device state; each ends in
 * a newline unless `frame` says otherwise (the URCap's `ack` has none).
 */
import net from 'node:net';
import { listen } from './rtde-server';

export interface LineServerOptions {
  welcome?: string;
  /** Returns the reply line (without newline); `undefined` closes the connection. */
  reply: (line: string) => string | undefined;
  /** The bytes sent for a reply; default: the reply and a newline. */
  frame?: (reply: string) => string;
}

export class LineServer {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();

  constructor(options: LineServerOptions) {
    this.server = net.createServer((socket) => {
      this.sockets.add(socket);
      socket.setNoDelay(true);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
      if (options.welcome !== undefined) socket.write(`${options.welcome}\n`);
      let buffered = '';
      socket.on('data', (chunk) => {
        buffered += chunk.toString('latin1');
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl).replace(/\r$/, '');
          buffered = buffered.slice(nl + 1);
          const answer = options.reply(line);
          if (answer === undefined) {
            socket.end();
            return;
          }
          socket.write(options.frame ? options.frame(answer) : `${answer}\n`);
        }
      });
    });
  }

  listen(port: number, host = '127.0.0.1'): Promise<number> {
    return listen(this.server, port, host);
  }

  dropClients(): void {
    for (const s of this.sockets) s.destroy();
  }

  close(): Promise<void> {
    this.dropClients();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
