/** The console client over the web-mode WebSocket (ws://host/api?token=...). */
import {
  serverFrameSchema,
  formatIssues,
  type ClientFrame,
  type CommandOf,
  type CommandResult,
  type CommandType,
  type ConsoleEvent,
} from '#contract/console-api';
import {
  checkedCommand,
  checkedEvent,
  checkedResult,
  Listeners,
  type ConsoleClient,
  type LinkState,
} from './client';

interface Pending {
  type: CommandType;
  resolve: (value: never) => void;
  reject: (err: Error) => void;
}

export class WebSocketConsoleClient implements ConsoleClient {
  readonly transport = 'websocket' as const;
  private readonly socket: WebSocket;
  private readonly opened: Promise<void>;
  private readonly pending = new Map<number, Pending>();
  private readonly events = new Listeners<ConsoleEvent>();
  private readonly links = new Listeners<LinkState>();
  private link: LinkState = { up: false, detail: 'connecting' };
  private nextId = 1;

  constructor(
    url: string,
    private readonly onRejected: (reason: string) => void = (r) => console.warn(r),
  ) {
    this.socket = new WebSocket(url);
    this.opened = new Promise((resolve, reject) => {
      this.socket.addEventListener('open', () => {
        this.setLink({ up: true, detail: 'WebSocket' });
        resolve();
      });
      this.socket.addEventListener('close', (e) => {
        const detail = `connection to the console closed${e.reason ? `: ${e.reason}` : ''}`;
        this.setLink({ up: false, detail });
        reject(new Error(detail));
        for (const p of this.pending.values()) p.reject(new Error(detail));
        this.pending.clear();
      });
    });
    this.opened.catch(() => {});
    this.socket.addEventListener('message', (e) => this.receive(e.data));
  }

  async request<T extends CommandType>(command: CommandOf<T>): Promise<CommandResult<T>> {
    const frame: ClientFrame = { kind: 'command', id: this.nextId++, command: checkedCommand(command) };
    await this.opened;
    return new Promise<CommandResult<T>>((resolve, reject) => {
      this.pending.set(frame.id, { type: command.type, resolve: resolve as (v: never) => void, reject });
      this.socket.send(JSON.stringify(frame));
    });
  }

  onEvent(listener: (event: ConsoleEvent) => void): () => void {
    return this.events.add(listener);
  }

  onLink(listener: (link: LinkState) => void): () => void {
    listener(this.link);
    return this.links.add(listener);
  }

  close(): void {
    this.socket.close();
  }

  private setLink(link: LinkState): void {
    this.link = link;
    this.links.emit(link);
  }

  private receive(data: unknown): void {
    let json: unknown;
    try {
      json = JSON.parse(String(data));
    } catch {
      return this.onRejected('dropped a frame that is not JSON');
    }
    const frame = serverFrameSchema.safeParse(json);
    if (!frame.success) return this.onRejected(`dropped a malformed frame: ${formatIssues(frame.error)}`);
    const f = frame.data;
    if (f.kind === 'event') {
      const event = checkedEvent(f.event, this.onRejected);
      if (event) this.events.emit(event);
    } else if (f.kind === 'rejected') {
      this.onRejected(`the core rejected a frame: ${f.reason}`);
    } else {
      const p = this.pending.get(f.id);
      if (!p) return this.onRejected(`response to unknown request ${f.id}`);
      this.pending.delete(f.id);
      try {
        p.resolve(checkedResult(p.type, f.response) as never);
      } catch (err) {
        p.reject(err as Error);
      }
    }
  }
}
