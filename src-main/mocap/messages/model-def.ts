/**
 * MODELDEF (message 5): what Motive streams: marker sets, rigid bodies (name <-> id), skeletons,
 * force plates, devices, cameras and (4.1+) assets. From 4.1 every description carries its byte
 * size, so kinds this decoder does not know are kept as opaque bytes and re-encoded unchanged.
 */
import { ByteReader, DecodeError } from '../reader';
import { ByteWriter } from '../writer';
import { atLeast, hasSectionSizes, type NatNetVersion } from '../version';
import type { Quat, Vec3 } from './frame';

export interface MarkerSetDescription {
  kind: 'markerSet';
  name: string;
  markerNames: string[];
}

export interface RigidBodyMarkerDescription {
  position: Vec3;
  /** Required active label (0 for passive markers). */
  label: number;
  /** NatNet 4.0+. */
  name?: string;
}

export interface RigidBodyDescription {
  kind: 'rigidBody';
  name: string;
  id: number;
  parentId: number;
  offset: Vec3;
  /** NatNet 4.2+. */
  offsetOrientation?: Quat;
  markers: RigidBodyMarkerDescription[];
}

export interface SkeletonDescription {
  kind: 'skeleton';
  name: string;
  id: number;
  rigidBodies: RigidBodyDescription[];
}

export interface ForcePlateDescription {
  kind: 'forcePlate';
  id: number;
  serial: string;
  width: number;
  length: number;
  origin: Vec3;
  /** 12 x 12, row major. */
  calibration: number[];
  /** 4 corners x 3. */
  corners: number[];
  plateType: number;
  channelDataType: number;
  channelNames: string[];
}

export interface DeviceDescription {
  kind: 'device';
  id: number;
  name: string;
  serial: string;
  deviceType: number;
  channelDataType: number;
  channelNames: string[];
}

export interface CameraDescription {
  kind: 'camera';
  name: string;
  position: Vec3;
  orientation: Quat;
}

/** A description of a type this decoder does not read (only possible with 4.1+ sizes). */
export interface OpaqueDescription {
  kind: 'opaque';
  type: number;
  bytes: Uint8Array;
}

export type ModelDescription =
  | MarkerSetDescription
  | RigidBodyDescription
  | SkeletonDescription
  | ForcePlateDescription
  | DeviceDescription
  | CameraDescription
  | OpaqueDescription;

export interface ModelDefinitions {
  models: ModelDescription[];
}

const TYPE_OF = { markerSet: 0, rigidBody: 1, skeleton: 2, forcePlate: 3, device: 4, camera: 5 } as const;

function readNames(r: ByteReader, what: string): string[] {
  const n = r.count(1, what);
  const names: string[] = [];
  for (let i = 0; i < n; i++) names.push(r.cstring(what));
  return names;
}

function writeNames(w: ByteWriter, names: readonly string[]): void {
  w.i32(names.length);
  for (const n of names) w.cstring(n);
}

function readRigidBody(r: ByteReader, v: NatNetVersion): RigidBodyDescription {
  const name = r.cstring('rigid body name');
  const id = r.i32('rigid body id');
  const parentId = r.i32('rigid body parent');
  const offset = r.vec3('rigid body offset');
  const offsetOrientation = atLeast(v, 4, 2) ? r.quat('rigid body offset orientation') : undefined;
  const n = r.count(16, 'rigid body marker');
  const positions: Vec3[] = [];
  for (let i = 0; i < n; i++) positions.push(r.vec3('rigid body marker position'));
  const labels: number[] = [];
  for (let i = 0; i < n; i++) labels.push(r.i32('rigid body marker label'));
  const names: string[] = [];
  if (atLeast(v, 4, 0)) for (let i = 0; i < n; i++) names.push(r.cstring('rigid body marker name'));
  const markers = positions.map((position, i) => {
    const m: RigidBodyMarkerDescription = { position, label: labels[i]! };
    if (atLeast(v, 4, 0)) m.name = names[i]!;
    return m;
  });
  const rb: RigidBodyDescription = { kind: 'rigidBody', name, id, parentId, offset, markers };
  if (offsetOrientation) rb.offsetOrientation = offsetOrientation;
  return rb;
}

function writeRigidBody(w: ByteWriter, rb: RigidBodyDescription, v: NatNetVersion): void {
  w.cstring(rb.name).i32(rb.id).i32(rb.parentId).floats(rb.offset);
  if (atLeast(v, 4, 2)) w.floats(rb.offsetOrientation ?? [0, 0, 0, 1]);
  w.i32(rb.markers.length);
  for (const m of rb.markers) w.floats(m.position);
  for (const m of rb.markers) w.i32(m.label);
  if (atLeast(v, 4, 0)) for (const m of rb.markers) w.cstring(m.name ?? '');
}

function readFloats(r: ByteReader, n: number, what: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(r.f32(what));
  return out;
}

function readDescription(r: ByteReader, v: NatNetVersion, type: number, size: number): ModelDescription {
  switch (type) {
    case TYPE_OF.markerSet:
      return {
        kind: 'markerSet',
        name: r.cstring('marker set name'),
        markerNames: readNames(r, 'marker name'),
      };
    case TYPE_OF.rigidBody:
      return readRigidBody(r, v);
    case TYPE_OF.skeleton: {
      const name = r.cstring('skeleton name');
      const id = r.i32('skeleton id');
      // Smallest rigid-body description: empty name (1) + id, parent (8) + offset (12) + marker count (4).
      const n = r.count(25, 'skeleton rigid body');
      const rigidBodies: RigidBodyDescription[] = [];
      for (let i = 0; i < n; i++) rigidBodies.push(readRigidBody(r, v));
      return { kind: 'skeleton', name, id, rigidBodies };
    }
    case TYPE_OF.forcePlate:
      return {
        kind: 'forcePlate',
        id: r.i32('force plate id'),
        serial: r.cstring('force plate serial'),
        width: r.f32('force plate width'),
        length: r.f32('force plate length'),
        origin: r.vec3('force plate origin'),
        calibration: readFloats(r, 144, 'force plate calibration'),
        corners: readFloats(r, 12, 'force plate corners'),
        plateType: r.i32('force plate type'),
        channelDataType: r.i32('force plate channel data type'),
        channelNames: readNames(r, 'force plate channel name'),
      };
    case TYPE_OF.device:
      return {
        kind: 'device',
        id: r.i32('device id'),
        name: r.cstring('device name'),
        serial: r.cstring('device serial'),
        deviceType: r.i32('device type'),
        channelDataType: r.i32('device channel data type'),
        channelNames: readNames(r, 'device channel name'),
      };
    case TYPE_OF.camera:
      return {
        kind: 'camera',
        name: r.cstring('camera name'),
        position: r.vec3('camera position'),
        orientation: r.quat('camera orientation'),
      };
    default:
      if (size < 0) throw new DecodeError(`unknown model type ${type} and no size to skip it`, r.offset - 4);
      return { kind: 'opaque', type, bytes: r.bytesOf(size, `model type ${type}`).slice() };
  }
}

function writeDescription(w: ByteWriter, d: ModelDescription, v: NatNetVersion): void {
  switch (d.kind) {
    case 'markerSet':
      w.cstring(d.name);
      writeNames(w, d.markerNames);
      return;
    case 'rigidBody':
      writeRigidBody(w, d, v);
      return;
    case 'skeleton':
      w.cstring(d.name).i32(d.id).i32(d.rigidBodies.length);
      for (const rb of d.rigidBodies) writeRigidBody(w, rb, v);
      return;
    case 'forcePlate':
      w.i32(d.id).cstring(d.serial).f32(d.width).f32(d.length).floats(d.origin);
      w.floats(d.calibration).floats(d.corners).i32(d.plateType).i32(d.channelDataType);
      writeNames(w, d.channelNames);
      return;
    case 'device':
      w.i32(d.id).cstring(d.name).cstring(d.serial).i32(d.deviceType).i32(d.channelDataType);
      writeNames(w, d.channelNames);
      return;
    case 'camera':
      w.cstring(d.name).floats(d.position).floats(d.orientation);
      return;
    case 'opaque':
      w.bytes(d.bytes);
      return;
  }
}

export function decodeModelDef(payload: Uint8Array, v: NatNetVersion): ModelDefinitions {
  const r = new ByteReader(payload);
  const n = r.count(hasSectionSizes(v) ? 8 : 4, 'model');
  const models: ModelDescription[] = [];
  for (let i = 0; i < n; i++) {
    const type = r.i32('model type');
    let size = -1;
    if (hasSectionSizes(v)) {
      const at = r.offset;
      size = r.i32('model size');
      if (size < 0 || size > r.remaining) throw new DecodeError(`model size ${size} out of range`, at);
    }
    const start = r.offset;
    models.push(readDescription(r, v, type, size));
    if (size >= 0 && r.offset - start !== size) {
      throw new DecodeError(
        `model type ${type} holds ${r.offset - start} bytes but its size says ${size}`,
        start,
      );
    }
  }
  r.expectEnd('model definitions');
  return { models };
}

export function encodeModelDef(defs: ModelDefinitions, v: NatNetVersion): Uint8Array {
  const w = new ByteWriter(1024);
  w.i32(defs.models.length);
  for (const d of defs.models) {
    w.i32(d.kind === 'opaque' ? d.type : TYPE_OF[d.kind]);
    const sizeAt = hasSectionSizes(v) ? w.placeholderI32() : -1;
    const start = w.offset;
    writeDescription(w, d, v);
    if (sizeAt >= 0) w.patchI32(sizeAt, w.offset - start);
  }
  return w.finish();
}

/** Rigid-body id -> name, including rigid bodies inside skeletons. */
export function rigidBodyNames(defs: ModelDefinitions): Map<number, string> {
  const names = new Map<number, string>();
  for (const d of defs.models) {
    if (d.kind === 'rigidBody') names.set(d.id, d.name);
    if (d.kind === 'skeleton') for (const rb of d.rigidBodies) names.set(rb.id, rb.name);
  }
  return names;
}
