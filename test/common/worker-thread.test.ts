/**
 * The shared worker-thread handle (common/worker-thread.ts) that the safety thread and the virtual
 * lab's thread start with: a start's answer, failure, exit and silence; messages checked against
 * the schema; reports that came before the owner listened delivered in order; ending on request.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { WorkerThread, type ThreadListener } from '../../src-main/common/worker-thread';
import { waitUntil } from '../helpers/wait-until';

const schema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), raised: z.boolean() }),
  z.object({ type: z.literal('failed'), message: z.string() }),
  z.object({ type: z.literal('echo'), text: z.string() }),
]);
type Message = z.infer<typeof schema>;

const entry = {
  // No bundle: the source entry starts through tsx.
  bundled: new URL('./no-such-bundle.js', import.meta.url),
  source: new URL('../fixtures/workers/echo-worker.ts', import.meta.url),
};

function start(mode: string, timeout = 20) {
  let abandoned = 0;
  const started = WorkerThread.start({
    entry,
    schema,
    start: { mode },
    timeout,
    settle: (m: Message) => (m.type === 'ready' ? m : m.type === 'failed' ? new Error(m.message) : undefined),
    errors: {
      timeout: 'the echo worker did not start',
      invalid: (problem) => `not an echo message: ${problem}`,
      exit: (code) => `the echo worker exited (code ${code}) before it started`,
    },
    abandon: (t) => {
      abandoned++;
      return t.terminate();
    },
  });
  return { started, abandoned: () => abandoned };
}

/** A listener that records what it is told. */
function recorder(): { seen: string[]; listener: ThreadListener<Message> } {
  const seen: string[] = [];
  return {
    seen,
    listener: {
      message: (m) => seen.push(m.type === 'echo' ? `echo ${m.text}` : m.type),
      invalid: () => seen.push('invalid'),
      error: (e) => seen.push(`error ${e.message}`),
      exit: (code) => seen.push(`exit ${code}`),
    },
  };
}

describe('worker thread', () => {
  it('answers with the start message and hands over what came before and after it, in order', async () => {
    const { thread, answer } = await start('early').started;
    expect(answer.type).toBe('ready');
    const { seen, listener } = recorder();
    thread.listen(listener);
    thread.post('ping');
    await waitUntil('the echo of ping', () => seen.includes('echo ping'), { seen: () => seen.join(', ') });
    expect(seen).toEqual(['echo before', 'echo after', 'echo ping']);
    await thread.end('close', 5000);
    expect(thread.ended).toBe(true);
    expect(seen.at(-1)).toBe('exit 0');
  });

  it("rejects with the worker's own failure and lets go of the worker", async () => {
    const s = start('refuse');
    await expect(s.started).rejects.toThrow('no lab here');
    expect(s.abandoned()).toBe(1);
  });

  it('rejects a message that fails the schema, in the owner’s words', async () => {
    await expect(start('garbage').started).rejects.toThrow(/^not an echo message: /);
  });

  it('rejects when the worker exits before it answers, and abandons nothing', async () => {
    const s = start('exit');
    await expect(s.started).rejects.toThrow('the echo worker exited (code 3) before it started');
    expect(s.abandoned()).toBe(0);
  });

  it('rejects a worker that never answers', async () => {
    const s = start('silent', 3);
    await expect(s.started).rejects.toThrow('the echo worker did not start');
    expect(s.abandoned()).toBe(1);
  });
});
