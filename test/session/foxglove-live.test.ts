/**
 * A console dry run watched live with the official Foxglove WebSocket client (@foxglove/ws-protocol
 * FoxgloveClient over `ws`), as Foxglove or Lichtblick connects: the server on 127.0.0.1 advertises
 * every channel of the session log with the schema the log stores, the client subscribes to all of
 * them before the run, and every message it receives during the run validates against its
 * channel's advertised schema (and foxglove.* against @foxglove/schemas). And a supervised run on
 * the virtual lab, watched live, goes on to its goal while other clients send the frames that used
 * to end the process (issue 47).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FoxgloveClient, type Channel } from '@foxglove/ws-protocol';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { channelJsonSchema, schemaName, topics } from '../../src-main/session/channels';
import { FoxgloveSwitch } from '../../src-main/console/foxglove-switch';
import { FoxgloveLive } from '../../src-main/session/foxglove-live';
import { SessionLog } from '../../src-main/session/reader';
import { waitUntil } from '../helpers/wait-until';
import { Command } from 'commander';
import { registerRunCommand } from '../../src-main/cli/commands/run';
import { saveSetup } from '../../src-main/calibration/setup-file';
import { SESSIONS_DIR_ENV } from '../../src-main/session/sessions-dir';
import { VirtualLabThread } from '../../src-main/virtual-lab/lab-thread/lab-thread';
import { FREE_LAB_PORTS } from '../helpers/lab-config';
import { repoRoot } from '../helpers/scenes';
import { quickLabTask } from '../helpers/virtual-lab';
import { killerFrames, writeRaw } from '../helpers/ws-frames';
import { consoleDryRun } from './console-dry-run';
import { foxgloveSchemaProblems, officialSchema, validatorOf } from './foxglove-conformance';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-foxglove-live-'));
/** One slider, a straight push to a near goal, no obstacle. */
const shortScene = path.join(repoRoot, 'test/fixtures/lab-short-scene.json');
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

  it('parapush run --foxglove goes on to its goal while other clients send the frames that used to end it', async () => {
    // The command in this process (so an unhandled error is seen, not a dead child) against a
    // virtual lab in a thread of its own, as in test/cli/run-command.test.ts.
    const lab = await VirtualLabThread.start({
      scene: shortScene,
      ports: FREE_LAB_PORTS,
      mocap: { multicast: false },
      world: { noiseVariance: 0, seed: 1 },
      robot: { unlockDelay: 0.3 },
    });
    const sessions = mkdtempSync(path.join(dir, 'run-'));
    vi.stubEnv(SESSIONS_DIR_ENV, sessions);
    const setup = saveSetup(path.join(sessions, 'setup.json'), lab.setup);
    const taskFile = path.join(sessions, 'task.json');
    writeFileSync(taskFile, JSON.stringify({ ...quickLabTask(), scene: shortScene }));
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => void uncaught.push(err);
    process.on('uncaughtException', onUncaught);

    // The operator's viewer and the attackers connect at the URL the command prints; the
    // attackers strike at the first step, with the arm about to push.
    const topicOf = new Map<number, string>();
    const received = new Set<string>();
    let client: FoxgloveClient | null = null;
    let attackers: Promise<WebSocket[]> | null = null;
    let closeCodes: Promise<number[]> | null = null;
    let struck = false;
    const connect = (url: string) => {
      client = new FoxgloveClient({ ws: new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });
      client.on('advertise', (channels) => {
        for (const c of channels) topicOf.set(client!.subscribe(c.id), c.topic);
      });
      client.on('message', ({ subscriptionId }) => received.add(topicOf.get(subscriptionId)!));
      attackers = Promise.all(
        killerFrames.map(
          () =>
            new Promise<WebSocket>((resolve, reject) => {
              const ws = new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
              ws.once('open', () => resolve(ws));
              ws.once('error', reject);
            }),
        ),
      );
      closeCodes = attackers.then((open) =>
        Promise.all(open.map((ws) => new Promise<number>((r) => ws.once('close', (code) => r(code))))),
      );
    };
    const strike = () => {
      if (struck || !attackers) return;
      struck = true;
      void attackers.then((open) => killerFrames.forEach((k, i) => writeRaw(open[i]!, k.frame())));
    };
    const stderr: string[] = [];
    const stdout: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      const line = String(chunk);
      stderr.push(line);
      const url = /^Foxglove live view on (\S+) /.exec(line);
      if (url) connect(url[1]!);
      if (/^step \d+: u = /.test(line)) strike();
      return true;
    });
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stdout.push(String(chunk));
      return true;
    });
    const program = new Command().exitOverride();
    registerRunCommand(program);
    const p = lab.ports;
    try {
      await program.parseAsync(
        [
          'run',
          ...['--robot', '127.0.0.1', '--mocap', '127.0.0.1', '--task', taskFile, '--setup', setup],
          ...['--model', 'coarse', '--workers', '1', '--json', '--foxglove', '0'],
          ...['--rtde-port', String(p.rtde), '--dashboard-port', String(p.dashboard)],
          ...['--script-port', String(p.secondary), '--gripper-port', String(p.gripper)],
          ...['--natnet-port', String(p.natnetCommand)],
        ],
        { from: 'user' },
      );
      vi.restoreAllMocks();
      const report = stderr.join('').replaceAll('\n', ' | ');
      expect(struck, report).toBe(true);
      expect(JSON.parse(stdout.join('')), report).toMatchObject({ outcome: 'finished', cause: 'task' });
      expect(process.exitCode).toBe(0);
      expect(await closeCodes!).toEqual(killerFrames.map((k) => k.code));
      // The viewer watched the run to its end.
      for (const topic of ['/planner/step', '/robot/command', '/foxglove/scene/objects', '/run/outcome'])
        expect(received.has(topic), topic).toBe(true);
    } finally {
      vi.restoreAllMocks();
      vi.unstubAllEnvs();
      process.exitCode = undefined;
      process.off('uncaughtException', onUncaught);
      (client as FoxgloveClient | null)?.close();
      await lab.stop();
    }
    expect(uncaught).toEqual([]);
  }, 180_000);
});
