/** A console client for renderer tests: it records every command a view sends and answers as the core would. */
import type { ConsoleCommand } from '#contract/console-api';
import type { ConsoleClient } from '../../src-renderer/src/api/client';

/** `answer` gives the command's result (or throws its refusal); `sent` lists the commands in order. */
export function fakeClient(answer: (command: ConsoleCommand) => unknown): {
  client: ConsoleClient;
  sent: ConsoleCommand[];
} {
  const sent: ConsoleCommand[] = [];
  const client = {
    transport: 'websocket',
    request: async (command: ConsoleCommand) => {
      sent.push(command);
      return await answer(command);
    },
    onEvent: () => () => {},
    onLink: () => () => {},
    close: () => {},
  } as unknown as ConsoleClient;
  return { client, sent };
}
