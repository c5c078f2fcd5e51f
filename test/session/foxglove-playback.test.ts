/**
 * A recorded session played to a Foxglove viewer over the WebSocket protocol: the official client
 * subscribes to every channel, the log is played at 50x, and the viewer receives every message of
 * the log, in log-time order, stamped with its log time and valid against its channel's schema.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FoxgloveClient, type Channel } from '@foxglove/ws-protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { topics } from '../../src-main/session/channels';
import { FoxgloveLive } from '../../src-main/session/foxglove-live';
import { serveRecordedSession } from '../../src-main/session/foxglove-playback';
import { SessionLog } from '../../src-main/session/reader';
import { SessionRecorder } from '../../src-main/session/recorder';
import { waitUntil } from '../helpers/wait-until';
import { officialSchema, validatorOf } from './foxglove-conformance';
import { planarPoses, recordEveryChannel, runStatus } from './sample-messages';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-foxglove-playback-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a recorded session served to Foxglove', () => {
  it('plays every message of the log to a subscribed viewer, each valid, at its log time', async () => {
    const rec = await SessionRecorder.create({ dir, label: 'dry', origin: 'test' });
    recordEveryChannel(rec);
    const poses = planarPoses(8, 0.6);
    rec.poses({ ...poses, pusher: { ...poses.pusher, pose: null, z: null, poseTime: null } });
    rec.event({ type: 'run', status: runStatus('running', null) });
    await rec.close();
    const log = await SessionLog.open(rec.file);
    const expected: { topic: string; logTime: bigint }[] = [];
    for await (const m of log.messages()) expected.push({ topic: m.topic, logTime: m.logTime });

    const live = await FoxgloveLive.start({ port: 0 });
    const client = new FoxgloveClient({
      ws: new WebSocket(live.url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]),
    });
    const bySubscription = new Map<number, Channel>();
    const received: { topic: string; logTime: bigint }[] = [];
    const problems: string[] = [];
    const decoder = new TextDecoder();
    client.on('advertise', (channels) => {
      for (const c of channels) bySubscription.set(client.subscribe(c.id), c);
    });
    client.on('message', ({ subscriptionId, timestamp, data }) => {
      const channel = bySubscription.get(subscriptionId)!;
      received.push({ topic: channel.topic, logTime: timestamp });
      const message: unknown = JSON.parse(decoder.decode(data));
      for (const schema of [JSON.parse(channel.schema) as object, officialSchema(channel.schemaName)]) {
        if (!schema) continue;
        const validate = validatorOf(schema);
        if (!validate(message)) problems.push(`${channel.topic}: ${JSON.stringify(validate.errors)}`);
      }
    });
    try {
      await live.subscribed(topics.length);
      const sent = await serveRecordedSession(log, live, { speed: 50 });
      expect(sent).toBe(expected.length);
      await waitUntil('every message', () => received.length >= expected.length);
    } finally {
      client.close();
      await live.close();
      await log.close();
    }
    expect(problems).toEqual([]);
    expect(received).toEqual(expected);
  });
});
