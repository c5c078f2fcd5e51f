import { describe, expect, it } from 'vitest';
import type { CommandResponse, ConsoleBridge, ConsoleEvent } from '#contract/console-api';
import { IpcConsoleClient } from '../../src-renderer/src/api/ipc-client';

/** A bridge standing in for the preload, so the renderer side can be fed malformed messages. */
function fakeBridge(response: unknown) {
  let push: (e: ConsoleEvent) => void = () => {};
  const sent: unknown[] = [];
  const bridge: ConsoleBridge = {
    invoke: async (command) => {
      sent.push(command);
      return response as CommandResponse;
    },
    onEvent: (listener) => {
      push = listener;
      return () => {};
    },
  };
  return { bridge, sent, push: (e: unknown) => push(e as ConsoleEvent) };
}

describe('renderer side of the API rejects malformed messages', () => {
  it('does not send a malformed command', async () => {
    const { bridge, sent } = fakeBridge({ ok: true, result: {} });
    const client = new IpcConsoleClient(bridge);
    await expect(client.request({ type: 'run.abort', source: 'elbow' } as never)).rejects.toThrow(
      /malformed command: source/,
    );
    expect(sent).toEqual([]);
  });

  it('rejects a response that does not match the command result', async () => {
    const client = new IpcConsoleClient(fakeBridge({ ok: true, result: { files: 'all of them' } }).bridge);
    await expect(client.request({ type: 'scene.list' })).rejects.toThrow();
    const client2 = new IpcConsoleClient(fakeBridge({ ok: 'maybe' }).bridge);
    await expect(client2.request({ type: 'scene.list' })).rejects.toThrow();
  });

  it('turns a refusal into an error with the core reason', async () => {
    const client = new IpcConsoleClient(fakeBridge({ ok: false, error: 'no scene' }).bridge);
    await expect(client.request({ type: 'run.start', mode: 'dry' })).rejects.toThrow('no scene');
  });

  it('drops malformed events and reports them', () => {
    const { bridge, push } = fakeBridge(null);
    const rejected: string[] = [];
    const client = new IpcConsoleClient(bridge, (r) => rejected.push(r));
    const received: ConsoleEvent[] = [];
    client.onEvent((e) => received.push(e));
    push({ type: 'log', at: -5, level: 'info', source: 'x', message: 'y' });
    push({ type: 'supervisor', time: 1, decision: 'maybe', reason: '' });
    push({ type: 'log', at: 5, level: 'info', source: 'core', message: 'fine' });
    expect(received).toEqual([{ type: 'log', at: 5, level: 'info', source: 'core', message: 'fine' }]);
    expect(rejected).toHaveLength(2);
    expect(rejected[0]).toMatch(/^dropped a malformed event: at:/);
  });
});
