/**
 * A console dry run watched live with the official Foxglove WebSocket client (@foxglove/ws-protocol
 * FoxgloveClient over `ws`), as Foxglove or Lichtblick connects: the server on 127.0.0.1 advertises
 * every channel of the session log with the schema the log stores, the client subscribes to all of
 * them before the run, and every message it receives during the run validates against its
 * channel's advertised schema (and foxglove.* against @foxglove/schemas).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FoxgloveClient, type Channel } from '@foxglove/ws-protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { channelJsonSchema, schemaName, topics } from '../../src-main/session/channels';
import { FoxgloveSwitch } from '../../src-main/console/foxglove-switch';
import { FoxgloveLive } from '../../src-main/session/foxglove-live';
import { SessionLog } from '../../src-main/session/reader';
import { waitUntil } from '../helpers/wait-until';
import { consoleDryRun } from './console-dry-run';
import { foxgloveSchemaProblems, officialSchema, validatorOf } from './foxglove-conformance';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-foxglove-live-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a run watched live over the Foxglove WebSocket protocol', () => {
  it('advertises every channel with its log schema; a subscribed client gets valid messages of each', async () => {
    // The console's setting, on a free port, as the Setup view turns it on.
    const foxglove = new FoxgloveSwitch();
    const { url } = await foxglove.set(0);
    const ws = new WebSocket(url!, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
    const client = new FoxgloveClient({ ws });
    const channels: Channel[] = [];
    const bySubscription = new Map<number, Channel>();
    const received = new Map<string, number>();
    const problems: string[] = [];
    const decoder = new TextDecoder();
    let serverName = '';
    client.on('serverInfo', (info) => (serverName = info.name));
    client.on('advertise', (advertised) => {
      for (const channel of advertised) {
        channels.push(channel);
        bySubscription.set(client.subscribe(channel.id), channel);
      }
    });
    client.on('message', ({ subscriptionId, timestamp, data }) => {
      const channel = bySubscription.get(subscriptionId)!;
      received.set(channel.topic, (received.get(channel.topic) ?? 0) + 1);
      const message: unknown = JSON.parse(decoder.decode(data));
      const schemas = [JSON.parse(channel.schema) as object, officialSchema(channel.schemaName)];
      for (const schema of schemas) {
        if (!schema) continue;
        const validate = validatorOf(schema);
        if (!validate(message) && problems.length < 10)
          problems.push(`${channel.topic}: ${JSON.stringify(validate.errors)}`);
      }
      // Log time: ns since the epoch, now-ish.
      if (Math.abs(Number(timestamp) / 1e9 - Date.now() / 1000) > 60) problems.push(`${channel.topic}: time`);
    });
    try {
      await waitUntil('every channel advertised and subscribed', () => bySubscription.size === topics.length);
      expect(serverName).toBe('Parapush');
      expect(channels.map((c) => c.topic).sort()).toEqual([...topics].sort());
      for (const c of channels) {
        const topic = c.topic as (typeof topics)[number];
        expect(c, topic).toMatchObject({ encoding: 'json', schemaEncoding: 'jsonschema' });
        expect(c.schemaName, topic).toBe(schemaName(topic));
        expect(JSON.parse(c.schema), topic).toEqual(channelJsonSchema(topic));
        expect(foxgloveSchemaProblems(JSON.parse(c.schema)), topic).toEqual([]);
      }

      await consoleDryRun({ sessionsDir: dir, foxglove });
      // The last messages of the run are on the wire once the log is closed; let them arrive.
      await waitUntil('the run outcome', () => received.get('/run/outcome'));
    } finally {
      client.close();
      await foxglove.close();
    }
    expect(problems).toEqual([]);
    // The viewer got what the log got, message for message.
    const [file] = readdirSync(dir).filter((f) => f.endsWith('.mcap'));
    const log = await SessionLog.open(path.join(dir, file!));
    const logged = new Map(
      log
        .channelCounts()
        .filter((c) => c.messages > 0)
        .map((c) => [c.topic, c.messages]),
    );
    await log.close();
    expect(new Map([...received].sort())).toEqual(new Map([...logged].sort()));
    // However far the run got: the lab's streams, the 3D scene and how it ended.
    for (const topic of [
      '/session/info',
      '/mocap/frame',
      '/robot/state',
      '/scene/state',
      '/foxglove/tf',
      '/foxglove/scene/table',
      '/foxglove/scene/objects',
      '/foxglove/log',
      '/run/status',
      '/run/outcome',
    ])
      expect(received.get(topic), topic).toBeGreaterThan(0);
  }, 240_000);

  it('listens on 127.0.0.1 only, and says so in its URL with its token', async () => {
    const live = await FoxgloveLive.start({ port: 0 });
    try {
      expect(live.address).toMatchObject({ address: '127.0.0.1', family: 'IPv4' });
      expect(live.url).toBe(`ws://127.0.0.1:${live.port}/?token=${live.token}`);
      // 24 random bytes, fresh for each start.
      expect(live.token).toMatch(/^[\w-]{32}$/);
    } finally {
      await live.close();
    }
  });

  it('refuses a port in use, naming it', async () => {
    const first = await FoxgloveLive.start({ port: 0 });
    try {
      await expect(FoxgloveLive.start({ port: first.port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });
});
