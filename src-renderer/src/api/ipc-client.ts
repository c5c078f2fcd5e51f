/** The console client over Electron IPC, through the preload's window.parapush bridge. */
import type {
  CommandOf,
  CommandResult,
  CommandType,
  ConsoleBridge,
  ConsoleEvent,
} from '#contract/console-api';
import {
  checkedCommand,
  checkedEvent,
  checkedResult,
  Listeners,
  type ConsoleClient,
  type LinkState,
} from './client';

export class IpcConsoleClient implements ConsoleClient {
  readonly transport = 'ipc' as const;
  private readonly events = new Listeners<ConsoleEvent>();
  private readonly links = new Listeners<LinkState>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly bridge: ConsoleBridge,
    private readonly onRejected: (reason: string) => void = (r) => console.warn(r),
  ) {
    this.unsubscribe = bridge.onEvent((raw) => {
      const event = checkedEvent(raw, this.onRejected);
      if (event) this.events.emit(event);
    });
  }

  async request<T extends CommandType>(command: CommandOf<T>): Promise<CommandResult<T>> {
    const response = await this.bridge.invoke(checkedCommand(command));
    return checkedResult(command.type as T, response);
  }

  onEvent(listener: (event: ConsoleEvent) => void): () => void {
    return this.events.add(listener);
  }

  onLink(listener: (link: LinkState) => void): () => void {
    // IPC lives as long as the window: the link is up from the start.
    listener({ up: true, detail: 'Electron IPC' });
    return this.links.add(listener);
  }

  close(): void {
    this.unsubscribe();
  }
}
