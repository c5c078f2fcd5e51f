/**
 * The live Foxglove view as a console setting: off by default; `foxglove.set` turns it on at a
 * port of 127.0.0.1 (the snapshot and the log say where) and off again; a port in use is refused
 * with the reason and leaves the view off; a console without the view says so.
 */
import { createServer } from 'node:net';
import path from 'node:path';
import { FoxgloveClient } from '@foxglove/ws-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ConsoleCore } from '../../src-main/console/console-core';
import { FoxgloveSwitch } from '../../src-main/console/foxglove-switch';
import { topics } from '../../src-main/session/channels';
import { repoRoot } from '../helpers/scenes';
import { waitUntil } from '../helpers/wait-until';

const scenesDir = path.join(repoRoot, 'resources/scenes');
let foxglove: FoxgloveSwitch | undefined;
afterEach(async () => {
  await foxglove?.close();
  foxglove = undefined;
});

/** The topics a Foxglove client is offered at `url`. */
async function advertised(url: string): Promise<string[]> {
  const client = new FoxgloveClient({ ws: new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });
  const seen: string[] = [];
  client.on('advertise', (channels) => seen.push(...channels.map((c) => c.topic)));
  try {
    await waitUntil('the channels advertised', () => seen.length === topics.length);
    return seen;
  } finally {
    client.close();
  }
}

describe('the Foxglove live view setting', () => {
  it('is off until the operator turns it on, serves on 127.0.0.1, and turns off again', async () => {
    foxglove = new FoxgloveSwitch();
    const core = new ConsoleCore({ scenesDir, foxglove });
    const logs: string[] = [];
    core.subscribe((e) => e.type === 'log' && logs.push(e.message));
    expect(core.snapshot().foxglove).toEqual({ url: null });

    const on = await core.handle({ type: 'foxglove.set', port: 0 });
    expect(on.ok).toBe(true);
    const url = core.snapshot().foxglove.url;
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
    expect(on).toEqual({ ok: true, result: { foxglove: { url } } });
    expect(logs.at(-1)).toBe(
      `Foxglove live view on ${url} (127.0.0.1 only; the token in the URL is this launch's key: share it with no one)`,
    );
    expect((await advertised(url!)).sort()).toEqual([...topics].sort());

    expect(await core.handle({ type: 'foxglove.set', port: null })).toEqual({
      ok: true,
      result: { foxglove: { url: null } },
    });
    expect(logs.at(-1)).toBe('Foxglove live view off');
    // Nothing listens there any more.
    const refused = await new Promise<string>((resolve) => {
      const ws = new WebSocket(url!);
      ws.on('open', () => resolve('open'));
      ws.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
    expect(refused).toBe('ECONNREFUSED');
    // On again: the launch's token, so a viewer's saved URL still opens it.
    await core.handle({ type: 'foxglove.set', port: 0 });
    const again = core.snapshot().foxglove.url!;
    expect(new URL(again).searchParams.get('token')).toBe(new URL(url!).searchParams.get('token'));
    core.dispose();
  });

  it('refuses a port in use with the reason and stays off', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    foxglove = new FoxgloveSwitch();
    const core = new ConsoleCore({ scenesDir, foxglove });
    try {
      expect(await core.handle({ type: 'foxglove.set', port })).toEqual({
        ok: false,
        error: `port ${port} on 127.0.0.1 is in use: choose another (or 0 for a free one)`,
      });
      expect(core.snapshot().foxglove).toEqual({ url: null });
    } finally {
      core.dispose();
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('says so on a console without the view, and refuses ports out of range', async () => {
    const core = new ConsoleCore({ scenesDir });
    expect(await core.handle({ type: 'foxglove.set', port: 0 })).toEqual({
      ok: false,
      error: 'this console has no Foxglove live view',
    });
    const bad = await core.handle({ type: 'foxglove.set', port: 70000 });
    expect(bad.ok === false && bad.error).toMatch(/^malformed command: port: /);
    core.dispose();
  });
});
