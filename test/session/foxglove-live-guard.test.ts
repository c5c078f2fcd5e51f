/**
 * The live view under attack (issue 47): every finding of the audit replayed against the real
 * server on 127.0.0.1. A web page's (or any client's) foreign Origin, a wrong Host, a missing or
 * wrong token are refused before the handshake; a frame with RSV1 set, text that is not UTF-8, a
 * 101 MiB message or a subscribe too long close that connection only, and the server goes on
 * serving the viewer beside it (an unhandled error here would have ended `parapush run`); a viewer
 * that stops reading is cut off at 8 MiB queued; one subscribe naming 1 M channel ids costs no
 * memory to speak of; at most MAX_VIEWERS watch at once.
 */
import { readFileSync } from 'node:fs';
import { FoxgloveClient } from '@foxglove/ws-protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { MAX_BUFFERED_BYTES } from '../../src-main/common/loopback-guard';
import { topics } from '../../src-main/session/channels';
import { FoxgloveLive, MAX_VIEWER_MESSAGE_BYTES, MAX_VIEWERS } from '../../src-main/session/foxglove-live';
import { MAX_SUBSCRIPTIONS_PER_MESSAGE } from '../../src-main/session/foxglove-viewer';
import { waitUntil } from '../helpers/wait-until';
import { clientFrame, killerFrames, rawStatus, TEXT, writeRaw } from '../helpers/ws-frames';

const SUBPROTOCOL = FoxgloveClient.SUPPORTED_SUBPROTOCOL;
const APP = 'https://app.foxglove.dev';
let live: FoxgloveLive;
/** What would have ended a real `parapush run` process: the test runner survives it, we must not. */
const uncaught: unknown[] = [];
const onUncaught = (err: unknown) => void uncaught.push(err);

beforeAll(async () => {
  process.on('uncaughtException', onUncaught);
  live = await FoxgloveLive.start({ port: 0, origins: [APP] });
});
afterAll(async () => {
  process.off('uncaughtException', onUncaught);
  await live.close();
});

/** One raw WebSocket upgrade over TCP, as written: the status code of the answer. */
function upgrade(o: { target?: string; host?: string; origin?: string }): Promise<number> {
  const head =
    `GET ${o.target ?? `/?token=${live.token}`} HTTP/1.1\r\n` +
    `Host: ${o.host ?? `127.0.0.1:${live.port}`}\r\n` +
    'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n' +
    `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: ${SUBPROTOCOL}\r\n` +
    (o.origin === undefined ? '' : `Origin: ${o.origin}\r\n`) +
    '\r\n';
  return rawStatus(live.port, head);
}

/** A viewer's WebSocket on the live view's URL (with its token), open. */
function openViewer(url = live.url): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, [SUBPROTOCOL]);
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

const closeCode = (ws: WebSocket): Promise<number> =>
  new Promise((resolve) => ws.once('close', (code) => resolve(code)));

/** The JSON messages a viewer receives, as they come. */
function textMessages(ws: WebSocket): { op: string; [key: string]: unknown }[] {
  const seen: { op: string }[] = [];
  ws.on('message', (data, isBinary) => {
    if (!isBinary) seen.push(JSON.parse(String(data)) as { op: string });
  });
  return seen;
}

const subscribe = (ids: { id: number; channelId: number }[]) =>
  JSON.stringify({ op: 'subscribe', subscriptions: ids });

/** The live view still serves: a fresh viewer subscribes to a channel and gets its next message. */
async function stillServing(): Promise<void> {
  const client = new FoxgloveClient({ ws: new WebSocket(live.url, [SUBPROTOCOL]) });
  try {
    const subscribed = new Promise<void>((resolve) =>
      client.on('advertise', (channels) => {
        const channel = channels.find((c) => c.topic === '/console/log')!;
        client.subscribe(channel.id);
        resolve();
      }),
    );
    let text: string | null = null;
    client.on('message', ({ data }) => (text = new TextDecoder().decode(data)));
    await subscribed;
    // The subscription is on its way: publish until it has arrived.
    await waitUntil('a message on the subscribed channel', () => {
      live.tap('/console/log', 1n, new TextEncoder().encode('{"still":"serving"}'));
      return text;
    });
    expect(text).toBe('{"still":"serving"}');
  } finally {
    client.close();
  }
}

describe('who may open the live view', () => {
  afterEach(() => expect(uncaught.splice(0)).toEqual([]));

  it('refuses a web page of another site (its Origin) and "null", the Origin any site can send from a sandboxed frame', async () => {
    expect(await upgrade({ origin: 'https://evil.example' })).toBe(403);
    expect(await upgrade({ origin: 'null' })).toBe(403);
    expect(await upgrade({ origin: `http://127.0.0.1:${live.port}` })).toBe(403);
    await expect(openViewerWithOrigin('https://evil.example')).rejects.toThrow('HTTP 403');
  });

  it('admits Foxglove and Lichtblick desktop (file://), an app it was told to allow, and clients that are not browsers', async () => {
    expect(await upgrade({ origin: 'file://' })).toBe(101);
    expect(await upgrade({ origin: APP })).toBe(101);
    expect(await upgrade({})).toBe(101);
  });

  it('refuses a missing or wrong token, another path, and a Host that is not 127.0.0.1 or localhost (DNS rebinding)', async () => {
    expect(await upgrade({ target: '/' })).toBe(401);
    expect(await upgrade({ target: '/?token=' })).toBe(401);
    expect(await upgrade({ target: `/?token=${live.token.slice(1)}x` })).toBe(401);
    expect(await upgrade({ target: `/?token=${live.token.toUpperCase()}` })).toBe(401);
    expect(await upgrade({ target: `/other?token=${live.token}` })).toBe(404);
    expect(await upgrade({ host: `evil.example:${live.port}` })).toBe(403);
    expect(await upgrade({ host: `127.0.0.1:${live.port + 1}` })).toBe(403);
    expect(await upgrade({ host: `localhost:${live.port}` })).toBe(101);
    await expect(openViewer(`ws://127.0.0.1:${live.port}`)).rejects.toThrow('HTTP 401');
  });
});

function openViewerWithOrigin(origin: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(live.url, [SUBPROTOCOL], { origin });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

describe('what a viewer may send', () => {
  afterEach(async () => {
    expect(uncaught.splice(0)).toEqual([]);
    await stillServing();
  });

  it.each([
    ...killerFrames,
    {
      what: 'text that is not JSON',
      code: 1008,
      frame: () => clientFrame({ opcode: TEXT, payload: Buffer.from('{"op":') }),
    },
  ])('closes the connection of $what with $code; the viewer beside it goes on', async ({ code, frame }) => {
    const bystander = await openViewer();
    const attacker = await openViewer();
    const closed = closeCode(attacker);
    writeRaw(attacker, frame());
    expect(await closed).toBe(code);
    expect(bystander.readyState).toBe(WebSocket.OPEN);
    bystander.close();
  });

  it(`closes a message over ${MAX_VIEWER_MESSAGE_BYTES / 1024} KiB with 1009`, async () => {
    const ws = await openViewer();
    const closed = closeCode(ws);
    ws.send(' '.repeat(MAX_VIEWER_MESSAGE_BYTES + 1));
    expect(await closed).toBe(1009);
  });

  it('one subscribe naming 1 M unknown channel ids: closed on its header, no reply queued, no memory to speak of', async () => {
    const ids = Array.from({ length: 1_000_000 }, (_, i) => ({ id: i, channelId: 1_000_000 + i }));
    const bytes = clientFrame({ opcode: TEXT, payload: Buffer.from(subscribe(ids)) });
    expect(bytes.length).toBeGreaterThan(30e6);
    const ws = await openViewer();
    const replies = textMessages(ws);
    await waitUntil('the channels advertised', () => replies.some((m) => m.op === 'advertise'));
    const before = process.memoryUsage.rss();
    const closed = closeCode(ws);
    writeRaw(ws, bytes);
    expect(await closed).toBe(1009);
    // The audit saw 1 M status replies queued and +415-455 MB of memory.
    expect(replies.filter((m) => m.op === 'status')).toEqual([]);
    expect(process.memoryUsage.rss() - before).toBeLessThan(64 * 1024 * 1024);
  });

  it(`answers a subscribe of ${MAX_SUBSCRIPTIONS_PER_MESSAGE} unknown ids, and disconnects one of more (1008)`, async () => {
    expect(topics.length).toBeLessThan(MAX_SUBSCRIPTIONS_PER_MESSAGE);
    const unknown = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i, channelId: 100_000 + i }));
    const ws = await openViewer();
    const replies = textMessages(ws);
    ws.send(subscribe(unknown(MAX_SUBSCRIPTIONS_PER_MESSAGE)));
    await waitUntil('a status per unknown id', () =>
      replies.filter((m) => m.op === 'status').length === MAX_SUBSCRIPTIONS_PER_MESSAGE ? true : null,
    );
    const closed = closeCode(ws);
    ws.send(subscribe(unknown(MAX_SUBSCRIPTIONS_PER_MESSAGE + 1)));
    expect(await closed).toBe(1008);
    expect(replies.filter((m) => m.op === 'status')).toHaveLength(MAX_SUBSCRIPTIONS_PER_MESSAGE);
  });

  it('drops what the server does not serve (publishing, parameters, binary frames) and keeps the viewer', async () => {
    const ws = await openViewer();
    const replies = textMessages(ws);
    ws.send(
      JSON.stringify({
        op: 'advertise',
        channels: [{ id: 1, topic: '/robot/command', encoding: 'json', schemaName: 'x' }],
      }),
    );
    ws.send(JSON.stringify({ op: 'getParameters', parameterNames: [], id: 'x' }));
    ws.send(Buffer.from([0x01, 1, 0, 0, 0, 0x7b, 0x7d]));
    ws.send(subscribe([{ id: 1, channelId: 999_999 }]));
    // The subscribe's one reply, and nothing for the three before it.
    await waitUntil('the reply to the subscribe', () => replies.some((m) => m.op === 'status'));
    expect(replies.filter((m) => m.op === 'status')).toHaveLength(1);
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });
});

describe('what the live view holds for its viewers', () => {
  afterEach(() => expect(uncaught.splice(0)).toEqual([]));

  it('cuts off a viewer that stops reading once 8 MiB wait for it, and keeps one that reads', async () => {
    const encoder = new TextEncoder();
    const message = encoder.encode(JSON.stringify({ pad: 'x'.repeat(64 * 1024) }));
    const channelId = async (ws: WebSocket) => {
      const seen = textMessages(ws);
      const advertise = await waitUntil('the channels advertised', () =>
        seen.find((m) => m.op === 'advertise'),
      );
      return (advertise.channels as { id: number; topic: string }[]).find((c) => c.topic === '/console/log')!
        .id;
    };
    const stalled = await openViewer();
    stalled.send(subscribe([{ id: 1, channelId: await channelId(stalled) }]));
    const reader = await openViewer();
    reader.send(subscribe([{ id: 1, channelId: await channelId(reader) }]));
    let received = 0;
    reader.on('message', (_data, isBinary) => isBinary && received++);
    await new Promise((r) => setTimeout(r, 100));
    // From here on the stalled viewer reads nothing more.
    stalled.pause();
    const stalledClosed = closeCode(stalled);

    // Batches of 16 messages (1 MiB); the next once the reader has all of the last, so the cut is
    // seen at most a batch after it happened.
    let sent = 0;
    for (let round = 0; round < 128 && live.viewers > 1; round++) {
      for (let i = 0; i < 16; i++, sent++) live.tap('/console/log', BigInt(sent), message);
      await waitUntil('the reader to keep up', () => received === sent || live.viewers < 2);
    }
    await waitUntil('the reader to have it all', () => received === sent);
    expect(live.viewers).toBe(1);
    expect(reader.readyState).toBe(WebSocket.OPEN);
    stalled.resume();
    expect(await stalledClosed).toBe(1006);
    // Cut once the queue passed 8 MiB: what was sent before is 8 MiB plus what the kernel's socket
    // buffers took on both ends (at most their limits) plus the batches that passed it.
    const sentBytes = sent * message.length;
    expect(sentBytes).toBeGreaterThan(MAX_BUFFERED_BYTES);
    expect(sentBytes).toBeLessThan(MAX_BUFFERED_BYTES + socketBufferLimit() + 2 * 16 * message.length);
    reader.close();
  });

  it(`admits ${MAX_VIEWERS} viewers at once and refuses the next with 503 until one leaves`, async () => {
    await waitUntil('no viewers left from before', () => live.viewers === 0);
    const viewers = await Promise.all(Array.from({ length: MAX_VIEWERS }, () => openViewer()));
    expect(live.viewers).toBe(MAX_VIEWERS);
    expect(await upgrade({})).toBe(503);
    await expect(openViewer()).rejects.toThrow('HTTP 503');
    viewers[0]!.close();
    await waitUntil('a place free', () => live.viewers < MAX_VIEWERS);
    const next = await openViewer();
    for (const v of [next, ...viewers.slice(1)]) v.close();
    await waitUntil('every viewer gone', () => live.viewers === 0);
  });
});

/**
 * What the kernel may hold of a connection on loopback: the sender's send buffer and the
 * receiver's receive buffer at most (Linux's limits; 16 MiB where they cannot be read).
 */
function socketBufferLimit(): number {
  try {
    const max = (file: string) => Number(readFileSync(file, 'utf8').trim().split(/\s+/)[2]);
    return max('/proc/sys/net/ipv4/tcp_wmem') + max('/proc/sys/net/ipv4/tcp_rmem');
  } catch {
    return 16 * 1024 * 1024;
  }
}
