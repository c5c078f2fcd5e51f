/**
 * `mocap replay --serve`: plays a capture back as a live NatNet source. The captured frame packets
 * go out byte for byte at their original spacing (capture times, or frame timestamps for packet
 * folders); the command side answers CONNECT, model-definition requests and echo like Motive,
 * with the capture's NatNet version and model definitions.
 */
import type { CapturedPacket } from '../mocap/capture';
import { MessageId } from '../mocap/message-ids';
import { peekMessageId } from '../mocap/packet';
import { CaptureDecoder } from '../mocap/replay';
import { NATNET_3_0 } from '../mocap/version';
import { NatNetServerTransport, type NatNetTransportOptions } from './natnet-transport';
import { monotonicSeconds } from '../common/clock';

export interface ServeCaptureOptions extends Pick<
  NatNetTransportOptions,
  'address' | 'commandPort' | 'dataPort' | 'multicast' | 'multicastInterface'
> {
  loop?: boolean;
  /** Playback speed (1 = original timing). */
  speed?: number;
  signal?: AbortSignal;
  /** Called once the command socket listens (with its port: commandPort 0 picks a free one). */
  onListening?: (commandPort: number) => void;
}

export interface TimedFrame {
  /** Seconds from the first frame. */
  at: number;
  bytes: Uint8Array;
}

/**
 * The frame packets of a capture and when each goes out relative to the first. Gaps keep their
 * length up to maxGap (a capture paused for minutes, or packet files from different sessions,
 * should not stall playback); time running backwards counts as no gap.
 */
export function frameSchedule(
  packets: readonly CapturedPacket[],
  maxGap = 1,
): { frames: TimedFrame[]; decoder: CaptureDecoder } {
  const decoder = new CaptureDecoder();
  const frames: TimedFrame[] = [];
  let previous: number | undefined;
  let at = 0;
  for (const p of packets) {
    const decoded = decoder.push(p);
    if (!decoded || peekMessageId(p.bytes) !== MessageId.FrameOfData) continue;
    const t = p.time ?? decoded.frame.timestamp;
    if (previous !== undefined) at += Math.min(maxGap, Math.max(0, t - previous));
    previous = t;
    frames.push({ at, bytes: p.bytes });
  }
  return { frames, decoder };
}

export async function serveCapture(
  packets: readonly CapturedPacket[],
  options: ServeCaptureOptions,
): Promise<void> {
  const { frames, decoder } = frameSchedule(packets);
  if (frames.length === 0) throw new Error('the capture holds no decodable frames to serve');
  const info = decoder.serverInfo;
  const transport = new NatNetServerTransport(
    {
      address: options.address,
      commandPort: options.commandPort,
      dataPort: options.dataPort,
      multicast: options.multicast,
      multicastInterface: options.multicastInterface,
      natNetVersion: decoder.version ?? NATNET_3_0,
      appName: info?.appName ?? 'Parapush capture replay',
      appVersion: info?.appVersion,
      clockFrequency: info?.clockFrequency || undefined,
    },
    {
      modelDefinitions: () => decoder.modelDefs ?? { models: [] },
      frameRate: () => (frames.length > 1 ? (frames.length - 1) / frames.at(-1)!.at : 0),
    },
  );
  await transport.start();
  options.onListening?.(transport.commandPort);
  const speed = options.speed ?? 1;
  // One frame period between passes when looping (and never a busy loop over a 1-frame capture).
  const lastAt = frames.at(-1)!.at;
  const period = frames.length > 1 && lastAt > 0 ? lastAt / (frames.length - 1) : 1 / 120;
  try {
    do {
      const start = monotonicSeconds();
      for (const f of frames) {
        const wait = start + f.at / speed - monotonicSeconds();
        if (wait > 0) await sleep(wait, options.signal);
        if (options.signal?.aborted) return;
        transport.sendFrame(f.bytes);
      }
      if (options.loop) await sleep(period / speed, options.signal);
    } while (options.loop && !options.signal?.aborted);
  } finally {
    await transport.stop();
  }
}

/** Resolves after `seconds`, or at once when `signal` aborts. */
function sleep(seconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, seconds * 1000);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
