/**
 * A recorded session played to a Foxglove viewer over the WebSocket protocol: the official client
 * subscribes to every channel, the log is played at 50x, and the viewer receives every message of
 * the log, in log-time order, stamped with its log time and valid against its channel's schema.
 * `parapush log serve` prints its URL with the launch's token, refuses a viewer without it, and
 * goes on playing while other clients send the frames that used to end it (issue 47).
 */
import { spawn } from 'node:child_process';
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
import { repoRoot } from '../helpers/scenes';
import { waitUntil } from '../helpers/wait-until';
import { killerFrames, writeRaw } from '../helpers/ws-frames';
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

  it('parapush log serve prints its URL with a token, refuses a viewer without it, and outlives bad frames', async () => {
    const rec = await SessionRecorder.create({ dir, label: 'served', origin: 'test' });
    recordEveryChannel(rec);
    await rec.close();
    const serve = spawn(
      process.execPath,
      [path.join(repoRoot, 'bin/parapush.mjs'), 'log', 'serve', rec.file, '--foxglove', '0', '--speed', '50'],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    serve.stdout.on('data', (chunk: Buffer) => (stdout += String(chunk)));
    serve.stderr.on('data', (chunk: Buffer) => (stderr += String(chunk)));
    const exited = new Promise<number | null>((resolve) => serve.once('exit', (code) => resolve(code)));
    const open = (url: string, origin?: string) =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL], origin ? { origin } : {});
        ws.once('open', () => resolve(ws));
        ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
        ws.once('error', reject);
      });
    try {
      const url = await waitUntil('the URL', () => /Foxglove live view on (ws:\S+) /.exec(stdout)?.[1], {
        seen: () => stdout + stderr,
      });
      expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
      const bare = url.replace(/\?.*/, '');
      await expect(open(bare)).rejects.toThrow('HTTP 401');
      await expect(open(url, 'https://evil.example')).rejects.toThrow('HTTP 403');
      for (const k of killerFrames) {
        const ws = await open(url);
        const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
        writeRaw(ws, k.frame());
        expect(await closed, k.what).toBe(k.code);
      }
      // Still there: a viewer subscribes and the log plays to it, to the end.
      const client = new FoxgloveClient({ ws: await open(url) });
      let received = 0;
      client.on('advertise', (channels) => channels.forEach((c) => client.subscribe(c.id)));
      client.on('message', () => received++);
      expect(await exited, stderr).toBe(0);
      client.close();
      expect(stdout).toMatch(/played \d+ messages/);
      // What was on the wire when the server closed may be cut short; the viewer was served.
      expect(received).toBeGreaterThan(0);
    } finally {
      serve.kill();
    }
  }, 60_000);
});
