/** Synthetic NatNet messages that exercise every section, for round-trip and fuzz tests. */
import { emptyFrame, type FrameOfData, type RigidBodyData } from '../../src-main/mocap/messages/frame';
import type { ModelDefinitions } from '../../src-main/mocap/messages/model-def';

const f = Math.fround;

function rb(id: number, k: number): RigidBodyData {
  return {
    id,
    position: [f(0.1 * k), f(-0.2 * k), f(0.3 + k)],
    orientation: [f(0.1), f(0.2), f(-0.3), f(0.927)],
    meanError: f(0.0004 * k),
    params: k % 2,
  };
}

/** A frame with something in every section (assets and precision time only mean something in 4.1+). */
export function richFrame(withAssets: boolean): FrameOfData {
  const frame = emptyFrame(4242);
  frame.markerSets = [
    { name: 'Pusher', markers: [[f(0.5), f(0.25), f(-1.5)]] },
    { name: 'all', markers: [] },
  ];
  frame.legacyMarkers = [[f(1), f(2), f(3)]];
  frame.rigidBodies = [rb(1, 1), rb(2, 2), rb(3, 3)];
  frame.skeletons = [{ id: 9, rigidBodies: [rb((9 << 16) | 1, 4)] }];
  if (withAssets) {
    frame.assets = [
      {
        id: 20,
        rigidBodies: [rb(21, 5)],
        markers: [
          { id: 22, position: [f(0.1), f(0.2), f(0.3)], size: f(0.01), params: 4, residual: f(0.0001) },
        ],
      },
    ];
  }
  frame.labeledMarkers = [
    {
      id: (1 << 16) | 3,
      position: [f(0.7), f(0.8), f(0.9)],
      size: f(0.014),
      params: 0x0a,
      residual: f(0.0002),
    },
  ];
  frame.forcePlates = [{ id: 1, channels: [[f(1.5), f(2.5)], []] }];
  frame.devices = [{ id: 2, channels: [[f(-3.25)]] }];
  frame.timecode = 123;
  frame.timecodeSubframe = 4;
  frame.timestamp = 12.345678901234;
  frame.cameraMidExposure = 1_000_000_000_123n;
  frame.dataReceived = 1_000_000_010_000n;
  frame.transmit = 1_000_000_020_000n;
  if (withAssets) {
    frame.precisionSeconds = 1_700_000_000;
    frame.precisionFraction = 0x80000000;
  }
  frame.params = 0x02;
  return frame;
}

/** Model definitions with every kind this decoder reads (and, for 4.1+, one it keeps opaque). */
export function richModelDefs(opts: {
  markerNames: boolean;
  offsetOrientation: boolean;
  opaque: boolean;
}): ModelDefinitions {
  const defs: ModelDefinitions = {
    models: [
      { kind: 'markerSet', name: 'Pusher', markerNames: ['Marker1', 'Marker2'] },
      {
        kind: 'rigidBody',
        name: 'Pusher',
        id: 1,
        parentId: -1,
        offset: [0, 0, 0],
        markers: [
          { position: [f(0.01), f(0.02), f(0.03)], label: 0 },
          { position: [f(-0.01), f(0.02), f(0.03)], label: 0 },
        ],
      },
      {
        kind: 'skeleton',
        name: 'Skel',
        id: 9,
        rigidBodies: [
          { kind: 'rigidBody', name: 'Hip', id: 1, parentId: -1, offset: [f(0.1), 0, 0], markers: [] },
        ],
      },
      {
        kind: 'forcePlate',
        id: 1,
        serial: 'FP-1',
        width: f(0.6),
        length: f(0.4),
        origin: [0, 0, 0],
        calibration: Array.from({ length: 144 }, (_, i) => f(i / 7)),
        corners: Array.from({ length: 12 }, (_, i) => f(i / 3)),
        plateType: 1,
        channelDataType: 0,
        channelNames: ['Fx', 'Fy'],
      },
      {
        kind: 'device',
        id: 2,
        name: 'NIDAQ',
        serial: 'D-2',
        deviceType: 1,
        channelDataType: 0,
        channelNames: ['ai0'],
      },
      { kind: 'camera', name: 'Cam 1', position: [f(1), f(2), f(3)], orientation: [0, 0, 0, 1] },
    ],
  };
  for (const m of defs.models) {
    const rbs = m.kind === 'rigidBody' ? [m] : m.kind === 'skeleton' ? m.rigidBodies : [];
    for (const r of rbs) {
      if (opts.offsetOrientation) r.offsetOrientation = [0, 0, f(0.5), f(0.8660254)];
      if (opts.markerNames) r.markers.forEach((mk, i) => (mk.name = `${r.name}_${i + 1}`));
    }
  }
  if (opts.opaque) defs.models.push({ kind: 'opaque', type: 6, bytes: Uint8Array.from([1, 2, 3, 4, 5]) });
  return defs;
}
