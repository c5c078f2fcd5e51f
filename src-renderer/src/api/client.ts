/**
 * The renderer's one client of the console API. Two transports implement it (Electron IPC via
 * the preload bridge, and the web-mode WebSocket); both validate what they send and receive.
 */
import {
  commandSchema,
  eventSchema,
  formatIssues,
  parseCommandResult,
  type CommandOf,
  type CommandResult,
  type CommandType,
  type ConsoleCommand,
  type ConsoleEvent,
} from '#contract/console-api';

export type LinkState = { up: boolean; detail: string };

export interface ConsoleClient {
  readonly transport: 'ipc' | 'websocket';
  request<T extends CommandType>(command: CommandOf<T>): Promise<CommandResult<T>>;
  onEvent(listener: (event: ConsoleEvent) => void): () => void;
  /** The link to the core itself (up, or why not). */
  onLink(listener: (link: LinkState) => void): () => void;
  close(): void;
}

/** Refuses to send a command the core would reject anyway: a bug in the UI, caught at the source. */
export function checkedCommand(command: ConsoleCommand): ConsoleCommand {
  const parsed = commandSchema.safeParse(command);
  if (!parsed.success) throw new Error(`refused to send a malformed command: ${formatIssues(parsed.error)}`);
  return parsed.data;
}

export function checkedResult<T extends CommandType>(type: T, response: unknown): CommandResult<T> {
  return parseCommandResult(type, response);
}

/** Parses an incoming event; malformed ones are reported and dropped, never acted on. */
export function checkedEvent(raw: unknown, onRejected: (reason: string) => void): ConsoleEvent | null {
  const parsed = eventSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  onRejected(`dropped a malformed event: ${formatIssues(parsed.error)}`);
  return null;
}

/** A small listener set, shared by both transports. */
export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();
  add(listener: (value: T) => void): () => void {
    this.set.add(listener);
    return () => this.set.delete(listener);
  }
  emit(value: T): void {
    for (const l of this.set) l(value);
  }
}
