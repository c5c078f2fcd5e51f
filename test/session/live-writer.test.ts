/**
 * The live log writes on schedule whatever sync is in flight, bounds what waits for the disk and
 * reports a recorder fault at that bound (issue 29, finding 8). The disk is an injected handle
 * whose writes and syncs finish only when the test says so: no clocks are involved.
 */
import { describe, expect, it } from 'vitest';
import { LiveMcapFile, RecorderFault, type LiveFileHandle } from '../../src-main/session/live-writer';

interface Gate {
  promise: Promise<void>;
  open: () => void;
  fail: (err: Error) => void;
}

function gate(): Gate {
  let open!: () => void;
  let fail!: (err: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

/** A disk whose syncs (and, if asked, writes) wait for the test to release them. */
function slowDisk(o: { holdWrites?: boolean } = {}) {
  const written: number[] = [];
  const syncs: Gate[] = [];
  const writes: Gate[] = [];
  let closed = false;
  const handle = {
    write: async (buffer: Uint8Array, offset = 0, length = buffer.byteLength - offset) => {
      if (o.holdWrites) {
        const g = gate();
        writes.push(g);
        await g.promise;
      }
      written.push(...buffer.subarray(offset, offset + length));
      return { bytesWritten: length, buffer };
    },
    datasync: () => {
      const g = gate();
      syncs.push(g);
      return g.promise;
    },
    close: async () => {
      closed = true;
    },
  } as unknown as LiveFileHandle;
  return { handle, written, syncs, writes, isClosed: () => closed };
}

/** Lets every promise that can settle now settle (no timers are waited for). */
const settle = () => new Promise<void>((r) => setImmediate(r));

const header = { profile: 'test', library: 'test' };
let sequence = 0;
function message(size: number) {
  return {
    channelId: 1,
    sequence: sequence++,
    logTime: 1n,
    publishTime: 1n,
    data: new Uint8Array(size).fill(7),
  };
}

function liveOn(handle: LiveFileHandle, o: { maxQueuedBytes?: number; errors?: Error[] } = {}) {
  const live = LiveMcapFile.onHandle('test.mcap', handle, header, {
    // The timer never fires within a test: flushes are the test's own.
    flushInterval: 1000,
    ...(o.maxQueuedBytes === undefined ? {} : { maxQueuedBytes: o.maxQueuedBytes }),
    onError: (e) => o.errors?.push(e),
  });
  live.addSchema({ id: 1, name: 's', encoding: 'jsonschema', data: new Uint8Array() });
  live.addChannel({ id: 1, schemaId: 1, topic: '/t', messageEncoding: 'json', metadata: new Map() });
  return live;
}

describe('live session log on a slow disk', () => {
  it('writes each flush while an earlier sync is still in flight', async () => {
    const disk = slowDisk();
    const live = liveOn(disk.handle);
    void live.flush();
    await settle();
    expect(disk.syncs).toHaveLength(1);
    const afterFirst = disk.written.length;
    expect(afterFirst).toBe(live.bytesWritten);

    // The first sync hangs; the next two flushes still reach the file.
    live.addMessage(message(100));
    void live.flush();
    await settle();
    live.addMessage(message(100));
    void live.flush();
    await settle();
    expect(disk.written.length).toBeGreaterThan(afterFirst + 200);
    expect(live.bytesWritten).toBe(disk.written.length);
    expect(live.queuedBytes).toBe(0);
    expect(live.bytesSynced).toBe(0);
    // One sync in flight and none started beside it.
    expect(disk.syncs).toHaveLength(1);
  });

  it('follows a sync in flight with one more that covers every later write', async () => {
    const disk = slowDisk();
    const live = liveOn(disk.handle);
    const first = live.flush();
    await settle();
    const flushes = [1, 2, 3].map(() => {
      live.addMessage(message(50));
      return live.flush();
    });
    let laterDone = false;
    void Promise.all(flushes).then(() => (laterDone = true));
    await settle();

    disk.syncs[0]!.open();
    await first;
    await settle();
    // The three later flushes share one sync, started once the first was done.
    expect(disk.syncs).toHaveLength(2);
    expect(laterDone).toBe(false);
    disk.syncs[1]!.open();
    await Promise.all(flushes);
    expect(live.bytesSynced).toBe(live.bytesWritten);
    expect(live.bytesWritten).toBe(disk.written.length);
  });

  it('stops at the byte cap with one recorder fault, then writes what was queued and closes', async () => {
    const disk = slowDisk({ holdWrites: true });
    const errors: Error[] = [];
    const live = liveOn(disk.handle, { maxQueuedBytes: 2000, errors });
    void live.flush();
    await settle();
    for (let i = 0; i < 100; i++) {
      live.addMessage(message(100));
      if (i % 5 === 0) void live.flush();
    }
    await settle();

    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(RecorderFault);
    expect(errors[0]!.message).toMatch(/recorder fault: \d+ bytes .*cap 2000/);
    // Bounded: the cap plus the one message that crossed it.
    expect(live.queuedBytes).toBeGreaterThan(2000);
    expect(live.queuedBytes).toBeLessThan(2000 + 200);
    expect(live.dropped).toBeGreaterThan(70);
    const queued = live.queuedBytes;

    // The disk catches up: everything queued before the fault reaches it, and close() succeeds.
    const closing = live.close();
    for (let i = 0; i < 50 && !disk.isClosed(); i++) {
      for (const w of disk.writes) w.open();
      for (const s of disk.syncs) s.open();
      await settle();
    }
    await closing;
    expect(disk.isClosed()).toBe(true);
    expect(live.queuedBytes).toBe(0);
    expect(disk.written.length).toBe(live.bytesWritten);
    expect(live.bytesWritten).toBeGreaterThanOrEqual(queued);
    expect(errors).toHaveLength(1);
  });

  it('a failed sync stops recording and close() reports it', async () => {
    const disk = slowDisk();
    const errors: Error[] = [];
    const live = liveOn(disk.handle, { errors });
    const first = live.flush();
    await settle();
    disk.syncs[0]!.fail(new Error('EIO'));
    await first;
    expect(errors.map((e) => e.message)).toEqual(['EIO']);
    const before = disk.written.length;
    live.addMessage(message(10));
    await expect(live.close()).rejects.toThrow('EIO');
    expect(disk.written.length).toBe(before);
  });
});
