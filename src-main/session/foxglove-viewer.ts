/**
 * One viewer of the live view (foxglove-live.ts), as the official FoxgloveServer sees its
 * connection: the viewer's WebSocket with its limits in between. Every message a viewer sends is
 * untrusted input, and nothing it sends may end the process or grow its memory without bound:
 *
 * - a frame the `ws` library refuses (RSV1 set with no extension agreed, text that is not UTF-8, a
 *   message over the server's maxPayload) closes this connection with 1002, 1007 or 1009; the
 *   'error' listener is what keeps that from being an unhandled error that ends the process;
 * - only `subscribe` and `unsubscribe` reach the server, checked, each naming at most
 *   MAX_SUBSCRIPTIONS_PER_MESSAGE ids (each unknown id costs a status reply); a viewer that sends
 *   more, or a malformed one, is disconnected with 1008; other operations (publishing, parameters,
 *   services, assets: the server offers none) and binary frames are dropped unread;
 * - a viewer that stops reading is cut off once more than the limit waits for it.
 */
import type { IWebSocket } from '@foxglove/ws-protocol';
import type { RawData, WebSocket } from 'ws';
import { z } from 'zod';
import { sendWithin } from '../common/loopback-guard';

/**
 * Most ids one subscribe or unsubscribe may name: far above the channels the live view
 * advertises (about twenty), which a viewer subscribes to in one message.
 */
export const MAX_SUBSCRIPTIONS_PER_MESSAGE = 256;

/** WebSocket close code for a message against the server's policy (RFC 6455, 7.4.1). */
const POLICY_VIOLATION = 1008;

export interface ViewerLimits {
  /** Bytes queued for the viewer past which it is cut off. */
  maxBufferedBytes: number;
}

const id = z.number().int().min(0).max(0xffff_ffff);
const listed = <T extends z.ZodType>(item: T) => z.array(item).max(MAX_SUBSCRIPTIONS_PER_MESSAGE);
const viewerRequestSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('subscribe'), subscriptions: listed(z.object({ id, channelId: id })) }),
  z.object({ op: z.literal('unsubscribe'), subscriptionIds: listed(id) }),
]);
const opSchema = z.object({ op: z.string() });
const SERVED_OPS = new Set(['subscribe', 'unsubscribe']);

export class FoxgloveViewer implements IWebSocket {
  /** Set by the server; what this viewer hands it is always text. */
  binaryType = 'arraybuffer';
  onerror: ((event: unknown) => void) | null | undefined = null;
  onopen: ((event: unknown) => void) | null | undefined = null;
  onclose: ((event: { code: number; reason: string; wasClean: boolean }) => void) | null | undefined = null;
  onmessage: ((event: { data: string }) => void) | null | undefined = null;

  constructor(
    private readonly ws: WebSocket,
    private readonly limits: ViewerLimits,
  ) {
    // The library has already closed the connection with the reason; nothing is left to do.
    ws.on('error', () => undefined);
    ws.on('close', (code, reason) => this.onclose?.({ code, reason: reason.toString(), wasClean: true }));
    ws.on('message', (data, isBinary) => this.receive(data, isBinary));
  }

  get protocol(): string {
    return this.ws.protocol;
  }

  close(): void {
    this.ws.close();
  }

  /**
   * One parameter, so the server sends a message's header and data as one frame: a viewer cut off
   * between the two would otherwise be left half a message.
   */
  send(data: string | ArrayBuffer | ArrayBufferView): void {
    sendWithin(this.ws, data, this.limits.maxBufferedBytes);
  }

  private receive(data: RawData, isBinary: boolean): void {
    if (isBinary) return;
    let json: unknown;
    try {
      json = JSON.parse(data.toString());
    } catch {
      return this.ws.close(POLICY_VIOLATION, 'not JSON');
    }
    const op = opSchema.safeParse(json);
    if (!op.success) return this.ws.close(POLICY_VIOLATION, 'no op');
    if (!SERVED_OPS.has(op.data.op)) return;
    const request = viewerRequestSchema.safeParse(json);
    if (!request.success)
      return this.ws.close(
        POLICY_VIOLATION,
        `malformed ${op.data.op} (at most ${MAX_SUBSCRIPTIONS_PER_MESSAGE} ids of 0..2^32-1)`,
      );
    this.onmessage?.({ data: JSON.stringify(request.data) });
  }
}
