/**
 * Capture replay: decodes a recorded NatNet stream with the same decoder as live, learning the
 * NatNet version from SERVERINFO (or trying the known layouts when the capture starts mid-stream)
 * and rigid-body names from MODELDEF, and formats one line (or one JSON object) per frame.
 */
import type { CapturedPacket } from './capture';
import { MessageId } from './message-ids';
import { trackingValid, type FrameOfData } from './messages/frame';
import { rigidBodyNames, type ModelDefinitions } from './messages/model-def';
import type { ServerInfo } from './messages/server-info';
import { decodePacket, peekMessageId, type DecodeResult } from './packet';
import { formatVersion, type NatNetVersion } from './version';

/** Layouts tried, in order, until one decodes, when the capture has no SERVERINFO. */
const CANDIDATES: NatNetVersion[] = [
  [3, 0, 0, 0],
  [4, 0, 0, 0],
  [4, 1, 0, 0],
  [4, 2, 0, 0],
];

export interface ReplayFrame {
  frame: FrameOfData;
  /** Capture time of the packet (s since the epoch), if known. */
  captureTime: number | undefined;
  names: ReadonlyMap<number, string>;
}

export interface ReplayJson {
  frame: number;
  timestamp: number;
  rigidBodies: {
    id: number;
    name: string | null;
    position: [number, number, number];
    orientation: [number, number, number, number];
    meanError: number;
    trackingValid: boolean;
  }[];
}

export class CaptureDecoder {
  version: NatNetVersion | undefined;
  serverInfo: ServerInfo | undefined;
  modelDefs: ModelDefinitions | undefined;
  private names = new Map<number, string>();
  readonly counts = { packets: 0, frames: 0, decodeErrors: 0, other: 0 };
  lastError: string | undefined;

  constructor(version?: NatNetVersion) {
    this.version = version;
  }

  private decode(bytes: Uint8Array): DecodeResult {
    if (this.version) return decodePacket(bytes, this.version);
    const id = peekMessageId(bytes);
    let first: DecodeResult | undefined;
    for (const v of CANDIDATES) {
      const r = decodePacket(bytes, v);
      first ??= r;
      if (r.ok) {
        // Frames and model definitions pin the layout; other messages read the same in every version.
        if (id === MessageId.FrameOfData || id === MessageId.ModelDef) this.version = v;
        return r;
      }
    }
    return first!;
  }

  /** Feeds one packet; returns the frame it held, if any. */
  push(packet: CapturedPacket): ReplayFrame | undefined {
    this.counts.packets++;
    const result = this.decode(packet.bytes);
    if (!result.ok) {
      this.counts.decodeErrors++;
      this.lastError = `${packet.source}: ${result.error}`;
      return undefined;
    }
    const m = result.message;
    if (m.kind === 'serverInfo') {
      this.serverInfo = m;
      this.version = m.natNetVersion;
    } else if (m.kind === 'modelDef') {
      this.modelDefs = { models: m.models };
      this.names = rigidBodyNames(this.modelDefs);
    } else if (m.kind === 'frame') {
      this.counts.frames++;
      return { frame: m, captureTime: packet.time, names: new Map(this.names) };
    } else this.counts.other++;
    return undefined;
  }

  summary(): string {
    const v = this.version ? formatVersion(this.version) : 'unknown';
    const c = this.counts;
    return `${c.packets} packets, ${c.frames} frames, ${c.decodeErrors} undecodable, NatNet ${v}`;
  }
}

export function replayJson(r: ReplayFrame): ReplayJson {
  return {
    frame: r.frame.frameNumber,
    timestamp: r.frame.timestamp,
    rigidBodies: r.frame.rigidBodies.map((rb) => ({
      id: rb.id,
      name: r.names.get(rb.id) ?? null,
      position: rb.position,
      orientation: rb.orientation,
      meanError: rb.meanError,
      trackingValid: trackingValid(rb),
    })),
  };
}

const mm = (v: number): string => (v * 1000).toFixed(1);

/** One human-readable line: frame number, time, then each rigid body in mm. */
export function replayLine(r: ReplayFrame): string {
  const bodies = r.frame.rigidBodies.map((rb) => {
    const name = r.names.get(rb.id) ?? `#${rb.id}`;
    const [x, y, z] = rb.position;
    return `${name} (${mm(x)}, ${mm(y)}, ${mm(z)}) mm${trackingValid(rb) ? '' : ' UNTRACKED'}`;
  });
  const head = `frame ${r.frame.frameNumber}  t=${r.frame.timestamp.toFixed(4)} s`;
  return bodies.length ? `${head}  ${bodies.join('  ')}` : `${head}  (no rigid bodies)`;
}
