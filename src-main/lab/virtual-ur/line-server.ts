/**
 * A TCP server for line protocols (dashboard, Robotiq URCap): an optional welcome line, then one
 * reply line per request line. Replies are computed synchronously from the device state.
 */
import net from 'node:net';
import { listen } from './rtde-server';

export interface LineServerOptions {
  welcome?: string;
  /** Returns the reply line (without newline); `undefined` closes the connection. */
  reply: (line: string) => string | undefined;
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
          socket.write(`${answer}\n`);
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
