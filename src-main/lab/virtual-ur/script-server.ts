/**
 * Script ports of the virtual controller (30002 secondary, 30003 realtime): URScript text arrives
 * and replaces the running program once a whole top-level `def ...():` ... `end` has arrived, or
 * when the sender closes (single-line scripts). Our control program is run natively; other
 * scripts stop it, as they would on a real controller.
 */
import net from 'node:net';
import type { VirtualController } from './controller';
import { listen } from './rtde-server';

const WHOLE_PROGRAM = /^def \w+\(\):[\s\S]*?^end[ \t]*$(\r?\n\w+\(\)[ \t]*$)?/m;

export class ScriptServer {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();

  constructor(controller: VirtualController) {
    this.server = net.createServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('utf8');
        const m = WHOLE_PROGRAM.exec(text);
        if (m && text.length > m.index + m[0].length) {
          controller.loadScript(text.slice(0, m.index + m[0].length));
          text = text.slice(m.index + m[0].length).replace(/^\s+/, '');
        }
      });
      socket.on('end', () => {
        if (text.trim().length > 0) controller.loadScript(text);
        text = '';
        socket.end();
      });
    });
  }

  listen(port: number, host = '127.0.0.1'): Promise<number> {
    return listen(this.server, port, host);
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
