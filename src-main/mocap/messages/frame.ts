/**
 * FRAMEOFDATA (message 7): one motion-capture frame. The layout is the same for NatNet 3.0, 3.1
 * and 4.0; 4.1 adds an int32 byte size after every section count, an Assets section after the
 * skeletons and a precision timestamp after the transmit time. Values are kept exactly as sent
 * (float32 widened to float64, uint64 clock ticks as bigint) so encode(decode(p)) == p.
 */
import { ByteReader, DecodeError } from '../reader';
import { ByteWriter } from '../writer';
import type { Quat, Vec3 } from '#contract/geometry';
import { atLeast, hasSectionSizes, type NatNetVersion } from '../version';

export type { Quat, Vec3 };

export interface RigidBodyData {
  id: number;
  position: Vec3;
  orientation: Quat;
  /** Mean marker error in metres. */
  meanError: number;
  /** Bit 0: tracking valid. */
  params: number;
}

export interface MarkerSetData {
  name: string;
  markers: Vec3[];
}

export interface SkeletonData {
  id: number;
  rigidBodies: RigidBodyData[];
}

export interface AssetMarkerData {
  id: number;
  position: Vec3;
  size: number;
  params: number;
  residual: number;
}

export interface AssetData {
  id: number;
  rigidBodies: RigidBodyData[];
  markers: AssetMarkerData[];
}

export interface LabeledMarkerData {
  /** Raw id: model id in the high 16 bits, marker id in the low 16 bits. */
  id: number;
  position: Vec3;
  size: number;
  /** 0x01 occluded, 0x02 point-cloud solved, 0x04 model solved, 0x08 has model, 0x10 unlabeled, 0x20 active. */
  params: number;
  /** Metres. */
  residual: number;
}

/** A force plate or an analog device: per channel, the samples of this mocap frame. */
export interface AnalogData {
  id: number;
  channels: number[][];
}

export interface FrameOfData {
  frameNumber: number;
  markerSets: MarkerSetData[];
  legacyMarkers: Vec3[];
  rigidBodies: RigidBodyData[];
  skeletons: SkeletonData[];
  /** NatNet 4.1+ only (always empty below). */
  assets: AssetData[];
  labeledMarkers: LabeledMarkerData[];
  forcePlates: AnalogData[];
  devices: AnalogData[];
  timecode: number;
  timecodeSubframe: number;
  /** Seconds since Motive started streaming. */
  timestamp: number;
  /** Server clock ticks (see SERVERINFO clockFrequency). */
  cameraMidExposure: bigint;
  dataReceived: bigint;
  transmit: bigint;
  /** NatNet 4.1+: precision time (PTP) seconds and fraction; 0 below. */
  precisionSeconds: number;
  precisionFraction: number;
  /** Bit 0 recording, bit 1 tracked models changed. */
  params: number;
}

export const RIGID_BODY_BYTES = 38;
export const LABELED_MARKER_BYTES = 26;
const ASSET_MARKER_BYTES = 26;

export function trackingValid(rb: { params: number }): boolean {
  return (rb.params & 0x01) !== 0;
}

export function modelIdOf(labeledMarkerId: number): number {
  return (labeledMarkerId >>> 16) & 0xffff;
}

export function markerIdOf(labeledMarkerId: number): number {
  return labeledMarkerId & 0xffff;
}

export function modelsChanged(frame: { params: number }): boolean {
  return (frame.params & 0x02) !== 0;
}

export function isRecording(frame: { params: number }): boolean {
  return (frame.params & 0x01) !== 0;
}

/**
 * Reads a section: count (bounds-checked against the smallest possible item), then in 4.1+ the
 * section byte size, which must match what the items actually occupy.
 */
function section<T>(r: ByteReader, v: NatNetVersion, minItem: number, what: string, item: () => T): T[] {
  const n = r.count(minItem, what);
  let size = -1;
  if (hasSectionSizes(v)) {
    const at = r.offset;
    size = r.i32(`${what} size`);
    if (size < 0 || size > r.remaining) throw new DecodeError(`${what} size ${size} out of range`, at);
  }
  const start = r.offset;
  const items: T[] = [];
  for (let i = 0; i < n; i++) items.push(item());
  if (size >= 0 && r.offset - start !== size) {
    throw new DecodeError(`${what} section holds ${r.offset - start} bytes but its size says ${size}`, start);
  }
  return items;
}

function writeSection<T>(w: ByteWriter, v: NatNetVersion, items: readonly T[], item: (x: T) => void): void {
  w.i32(items.length);
  const sizeAt = hasSectionSizes(v) ? w.placeholderI32() : -1;
  const start = w.offset;
  for (const x of items) item(x);
  if (sizeAt >= 0) w.patchI32(sizeAt, w.offset - start);
}

function readRigidBody(r: ByteReader): RigidBodyData {
  return {
    id: r.i32('rigid body id'),
    position: r.vec3('rigid body position'),
    orientation: r.quat('rigid body orientation'),
    meanError: r.f32('rigid body mean error'),
    params: r.i16('rigid body params'),
  };
}

function writeRigidBody(w: ByteWriter, rb: RigidBodyData): void {
  w.i32(rb.id).floats(rb.position).floats(rb.orientation).f32(rb.meanError).i16(rb.params);
}

function readRigidBodies(r: ByteReader, what: string): RigidBodyData[] {
  const n = r.count(RIGID_BODY_BYTES, what);
  const out: RigidBodyData[] = [];
  for (let i = 0; i < n; i++) out.push(readRigidBody(r));
  return out;
}

function writeRigidBodies(w: ByteWriter, rbs: readonly RigidBodyData[]): void {
  w.i32(rbs.length);
  for (const rb of rbs) writeRigidBody(w, rb);
}

function readMarkers(r: ByteReader, what: string): Vec3[] {
  const n = r.count(12, what);
  const out: Vec3[] = [];
  for (let i = 0; i < n; i++) out.push(r.vec3(what));
  return out;
}

function writeMarkers(w: ByteWriter, ms: readonly Vec3[]): void {
  w.i32(ms.length);
  for (const m of ms) w.floats(m);
}

function readAnalog(r: ByteReader, what: string): AnalogData {
  const id = r.i32(`${what} id`);
  const nChannels = r.count(4, `${what} channel`);
  const channels: number[][] = [];
  for (let c = 0; c < nChannels; c++) {
    const nFrames = r.count(4, `${what} channel frame`);
    const samples: number[] = [];
    for (let k = 0; k < nFrames; k++) samples.push(r.f32(`${what} sample`));
    channels.push(samples);
  }
  return { id, channels };
}

function writeAnalog(w: ByteWriter, a: AnalogData): void {
  w.i32(a.id).i32(a.channels.length);
  for (const ch of a.channels) {
    w.i32(ch.length);
    w.floats(ch);
  }
}

/** Decodes a FRAMEOFDATA payload (header removed). Throws DecodeError on any malformed byte. */
export function decodeFrame(payload: Uint8Array, v: NatNetVersion): FrameOfData {
  const r = new ByteReader(payload);
  const frameNumber = r.i32('frame number');
  const markerSets = section(r, v, 5, 'marker set', () => ({
    name: r.cstring('marker set name'),
    markers: readMarkers(r, 'marker set marker'),
  }));
  const legacyMarkers = section(r, v, 12, 'legacy marker', () => r.vec3('legacy marker'));
  const rigidBodies = section(r, v, RIGID_BODY_BYTES, 'rigid body', () => readRigidBody(r));
  const skeletons = section(r, v, 8, 'skeleton', () => ({
    id: r.i32('skeleton id'),
    rigidBodies: readRigidBodies(r, 'skeleton rigid body'),
  }));
  const assets = atLeast(v, 4, 1)
    ? section(r, v, 12, 'asset', () => {
        const id = r.i32('asset id');
        const rbs = readRigidBodies(r, 'asset rigid body');
        const nMarkers = r.count(ASSET_MARKER_BYTES, 'asset marker');
        const markers: AssetMarkerData[] = [];
        for (let i = 0; i < nMarkers; i++) {
          markers.push({
            id: r.i32('asset marker id'),
            position: r.vec3('asset marker position'),
            size: r.f32('asset marker size'),
            params: r.i16('asset marker params'),
            residual: r.f32('asset marker residual'),
          });
        }
        return { id, rigidBodies: rbs, markers };
      })
    : [];
  const labeledMarkers = section(r, v, LABELED_MARKER_BYTES, 'labeled marker', () => ({
    id: r.i32('labeled marker id'),
    position: r.vec3('labeled marker position'),
    size: r.f32('labeled marker size'),
    params: r.i16('labeled marker params'),
    residual: r.f32('labeled marker residual'),
  }));
  const forcePlates = section(r, v, 8, 'force plate', () => readAnalog(r, 'force plate'));
  const devices = section(r, v, 8, 'device', () => readAnalog(r, 'device'));
  const timecode = r.u32('timecode');
  const timecodeSubframe = r.u32('timecode subframe');
  const timestamp = r.f64('timestamp');
  const cameraMidExposure = r.u64('mid-exposure time');
  const dataReceived = r.u64('data-received time');
  const transmit = r.u64('transmit time');
  const precise = atLeast(v, 4, 1);
  const precisionSeconds = precise ? r.u32('precision seconds') : 0;
  const precisionFraction = precise ? r.u32('precision fraction') : 0;
  const params = r.i16('frame params');
  const endTag = r.i32('end-of-data tag');
  if (endTag !== 0) throw new DecodeError(`end-of-data tag is ${endTag}, not 0`, r.offset - 4);
  r.expectEnd('frame');
  return {
    frameNumber,
    markerSets,
    legacyMarkers,
    rigidBodies,
    skeletons,
    assets,
    labeledMarkers,
    forcePlates,
    devices,
    timecode,
    timecodeSubframe,
    timestamp,
    cameraMidExposure,
    dataReceived,
    transmit,
    precisionSeconds,
    precisionFraction,
    params,
  };
}

export function encodeFrame(f: FrameOfData, v: NatNetVersion): Uint8Array {
  const w = new ByteWriter(
    256 + f.rigidBodies.length * RIGID_BODY_BYTES + f.labeledMarkers.length * LABELED_MARKER_BYTES,
  );
  w.i32(f.frameNumber);
  writeSection(w, v, f.markerSets, (ms) => {
    w.cstring(ms.name);
    writeMarkers(w, ms.markers);
  });
  writeSection(w, v, f.legacyMarkers, (m) => w.floats(m));
  writeSection(w, v, f.rigidBodies, (rb) => writeRigidBody(w, rb));
  writeSection(w, v, f.skeletons, (s) => {
    w.i32(s.id);
    writeRigidBodies(w, s.rigidBodies);
  });
  if (atLeast(v, 4, 1)) {
    writeSection(w, v, f.assets, (a) => {
      w.i32(a.id);
      writeRigidBodies(w, a.rigidBodies);
      w.i32(a.markers.length);
      for (const m of a.markers) w.i32(m.id).floats(m.position).f32(m.size).i16(m.params).f32(m.residual);
    });
  }
  writeSection(w, v, f.labeledMarkers, (m) => {
    w.i32(m.id).floats(m.position).f32(m.size).i16(m.params).f32(m.residual);
  });
  writeSection(w, v, f.forcePlates, (a) => writeAnalog(w, a));
  writeSection(w, v, f.devices, (a) => writeAnalog(w, a));
  w.u32(f.timecode).u32(f.timecodeSubframe).f64(f.timestamp);
  w.u64(f.cameraMidExposure).u64(f.dataReceived).u64(f.transmit);
  if (atLeast(v, 4, 1)) w.u32(f.precisionSeconds).u32(f.precisionFraction);
  w.i16(f.params).i32(0);
  return w.finish();
}

/** An empty frame to fill in (the virtual server builds its frames from this). */
export function emptyFrame(frameNumber: number): FrameOfData {
  return {
    frameNumber,
    markerSets: [],
    legacyMarkers: [],
    rigidBodies: [],
    skeletons: [],
    assets: [],
    labeledMarkers: [],
    forcePlates: [],
    devices: [],
    timecode: 0,
    timecodeSubframe: 0,
    timestamp: 0,
    cameraMidExposure: 0n,
    dataReceived: 0n,
    transmit: 0n,
    precisionSeconds: 0,
    precisionFraction: 0,
    params: 0,
  };
}
