import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, type NatNetMessage } from '../../src-main/mocap/packet';
import { NATNET_3_0 } from '../../src-main/mocap/version';
import { markerIdOf, modelIdOf, trackingValid } from '../../src-main/mocap/messages/frame';
import { expected, fixture, fixtureNames } from './fixtures';

function decode(name: string): NatNetMessage {
  const result = decodePacket(fixture(name), NATNET_3_0);
  if (!result.ok) throw new Error(`${name}: ${result.error}`);
  return result.message;
}

function as<K extends NatNetMessage['kind']>(m: NatNetMessage, kind: K): Extract<NatNetMessage, { kind: K }> {
  expect(m.kind).toBe(kind);
  return m as Extract<NatNetMessage, { kind: K }>;
}

describe('captured NatNet 3.0 packets decode to expected.json', () => {
  it('has a decoded expectation for every fixture and each header matches', () => {
    const names = fixtureNames();
    expect(names.length).toBeGreaterThanOrEqual(9);
    for (const name of names) {
      const e = expected.files[name];
      expect(e, name).toBeDefined();
      const bytes = fixture(name);
      expect(bytes[0]! | (bytes[1]! << 8)).toBe(e.message_id);
      expect(bytes[2]! | (bytes[3]! << 8)).toBe(e.payload_bytes);
      expect(decodePacket(bytes, NATNET_3_0).ok, name).toBe(true);
    }
  });

  it('connect and discovery', () => {
    for (const [name, kind] of [
      ['connect_packet_v3.bin', 'connect'],
      ['discovery_packet_v3.bin', 'discovery'],
    ] as const) {
      const e = expected.files[name];
      const m = as(decode(name), kind);
      expect(m.name).toBe(e.payload_name);
      expect([...m.appVersion]).toEqual(e.version1);
      expect([...m.natNetVersion]).toEqual(e.version2);
      expect(m.options.byteLength).toBe(0);
    }
  });

  it('server info', () => {
    const e = expected.files['serverinfo_packet_v3.bin'];
    const m = as(decode('serverinfo_packet_v3.bin'), 'serverInfo');
    expect(m.appName).toBe(e.app_name);
    expect([...m.appVersion]).toEqual(e.app_version);
    expect([...m.natNetVersion]).toEqual(e.natnet_version);
    expect(m.clockFrequency).toBe(e.high_resolution_clock_frequency);
    expect(m.dataPort).toBe(e.data_port);
    expect(m.multicast).toBe(e.multicast);
    expect(m.multicastAddress).toBe(e.multicast_address);
  });

  it('echo request and response', () => {
    const req = as(decode('echorequest_packet_v3.bin'), 'echoRequest');
    expect(req.clientTime).toBe(BigInt(expected.files['echorequest_packet_v3.bin'].timestamp_uint64));
    const e = expected.files['echoresponse_packet_v3.bin'];
    const res = as(decode('echoresponse_packet_v3.bin'), 'echoResponse');
    expect(res.clientTime).toBe(BigInt(e.request_timestamp_uint64));
    expect(res.serverTicks).toBe(BigInt(e.received_timestamp_uint64_server_ticks));
  });

  it('model definition request', () => {
    as(decode('requestmodeldef_packet_v3.bin'), 'requestModelDef');
  });

  it('model definitions', () => {
    const e = expected.files['modeldef_packet_v3.bin'];
    const m = as(decode('modeldef_packet_v3.bin'), 'modelDef');
    expect(m.models).toHaveLength(e.models.length);
    e.models.forEach((em: Record<string, unknown>, i: number) => {
      const d = m.models[i]!;
      if (em.kind === 'rigid_body') {
        if (d.kind !== 'rigidBody') throw new Error(`model ${i} is ${d.kind}`);
        expect(d.name).toBe(em.name);
        expect(d.id).toBe(em.id);
        expect(d.parentId).toBe(em.parent_id);
        expect(d.offset).toEqual(em.offset_from_parent);
        expect(d.markers.map((mk) => mk.position)).toEqual(em.marker_positions_exact);
        expect(d.markers.map((mk) => mk.label)).toEqual(em.required_active_labels);
      } else {
        if (d.kind !== 'markerSet') throw new Error(`model ${i} is ${d.kind}`);
        expect(d.name).toBe(em.name);
        expect(d.markerNames).toEqual(em.marker_names);
      }
    });
  });

  it('frame of data', () => {
    const e = expected.files['mocapframe_packet_v3.bin'];
    const f = as(decode('mocapframe_packet_v3.bin'), 'frame');
    expect(f.frameNumber).toBe(e.frame_number);
    expect(f.markerSets).toEqual(e.markersets);
    expect(f.legacyMarkers).toHaveLength(e.legacy_unlabeled_markers_count);
    expect(f.rigidBodies).toHaveLength(e.rigid_bodies.length);
    const rb = f.rigidBodies[0]!;
    const erb = e.rigid_bodies[0];
    expect(rb.id).toBe(erb.id);
    expect(rb.position).toEqual(erb.position_exact);
    expect(rb.orientation).toEqual(erb.orientation_xyzw_exact);
    expect(rb.meanError).toBe(erb.mean_error_exact);
    expect(rb.params).toBe(erb.params);
    expect(trackingValid(rb)).toBe(erb.tracking_valid);
    expect(f.skeletons).toEqual(e.skeletons);
    expect(f.labeledMarkers).toHaveLength(e.labeled_markers.length);
    f.labeledMarkers.forEach((m, i) => {
      const em = e.labeled_markers[i];
      expect(modelIdOf(m.id)).toBe(em.model_id);
      expect(markerIdOf(m.id)).toBe(em.marker_id);
      expect(m.position).toEqual(em.position_exact);
      expect(m.size).toBe(em.size_exact);
      expect(m.params).toBe(em.params);
      expect(m.residual).toBe(em.residual_exact);
      if (em.flags) {
        expect((m.params & 0x01) !== 0).toBe(em.flags.occluded);
        expect((m.params & 0x02) !== 0).toBe(em.flags.point_cloud_solved);
        expect((m.params & 0x08) !== 0).toBe(em.flags.has_model);
        expect((m.params & 0x10) !== 0).toBe(em.flags.unlabeled);
      }
    });
    // The legacy unlabeled markers repeat the rigid body's labeled markers (model id != 0).
    expect(f.legacyMarkers).toEqual(
      f.labeledMarkers.filter((m) => modelIdOf(m.id) !== 0).map((m) => m.position),
    );
    expect(f.forcePlates).toEqual(e.force_plates);
    expect(f.devices).toEqual(e.devices);
    expect(f.timecode).toBe(e.timecode);
    expect(f.timecodeSubframe).toBe(e.timecode_subframe);
    expect(f.timestamp).toBe(e.timestamp_seconds_exact);
    expect(f.cameraMidExposure).toBe(BigInt(e.camera_mid_exposure_timestamp_ticks));
    expect(f.dataReceived).toBe(BigInt(e.camera_data_received_timestamp_ticks));
    expect(f.transmit).toBe(BigInt(e.transmit_timestamp_ticks));
    expect(f.params).toBe(e.frame_params);
    const freq = expected.files['serverinfo_packet_v3.bin'].high_resolution_clock_frequency;
    expect(Number(f.transmit - f.cameraMidExposure) / freq).toBeCloseTo(e.derived_system_latency_s, 9);
  });

  it('frame with an occluded marker', () => {
    const e = expected.files['mocapframe_packet_occluded_v3.bin'].raw_decode_by_independent_decoder;
    const f = as(decode('mocapframe_packet_occluded_v3.bin'), 'frame');
    expect(f.frameNumber).toBe(e.frame_number);
    expect(f.markerSets.map((s) => ({ name: s.name, marker_count: s.markers.length }))).toEqual(e.markersets);
    expect(f.markerSets[0]!.markers).toEqual(
      expected.files['mocapframe_packet_occluded_v3.bin'].client_workaround_expected
        .markerset_FakeTree_positions_exact,
    );
    expect(f.rigidBodies).toHaveLength(1);
    const rb = f.rigidBodies[0]!;
    expect(rb.id).toBe(e.rigid_bodies[0].id);
    expect(trackingValid(rb)).toBe(e.rigid_bodies[0].tracking_valid);
    expect(rb.position).toEqual(e.rigid_bodies[0].position_exact);
    expect(rb.orientation).toEqual(e.rigid_bodies[0].orientation_xyzw_exact);
    expect(f.labeledMarkers).toHaveLength(e.labeled_marker_count);
    expect(f.labeledMarkers.map((m) => [modelIdOf(m.id), markerIdOf(m.id)])).toEqual(e.labeled_marker_ids);
  });
});

describe('byte-exact round trip of the captured packets (NatNet 3.0)', () => {
  it.each(fixtureNames())('%s', (name) => {
    const bytes = fixture(name);
    const re = encodePacket(decode(name), NATNET_3_0);
    const want = Uint8Array.from(bytes);
    // Motive leaves uninitialised bytes after the NUL of the server name; the encoder writes zeros.
    if (name === 'serverinfo_packet_v3.bin') want.fill(0, 4 + 'Motive'.length + 1, 4 + 256);
    expect(Buffer.from(re).equals(Buffer.from(want))).toBe(true);
  });
});
