/**
 * NatNet over loopback as the motion-capture tests run it: the virtual Motive streaming still
 * poses, a hand-driven server (the transport alone, sending only the frames a test gives it), and a
 * NatNet client of either, all on 127.0.0.1. What a test opens goes into its `cleanups`, which its
 * afterEach closes, the last opened first.
 */
import dgram from 'node:dgram';
import { NatNetClient, type NatNetClientOptions } from '../../src-main/mocap/client';
import type { ModelDefinitions } from '../../src-main/mocap/messages/model-def';
import type { NatNetVersion } from '../../src-main/mocap/version';
import {
  VirtualNatNetServer,
  type TablePose,
  type VirtualNatNetServerOptions,
} from '../../src-main/virtual-lab/natnet-server';
import { NatNetServerTransport } from '../../src-main/virtual-lab/natnet-transport';

/** What a test opened, closed by its afterEach. */
type Cleanups = (() => Promise<void>)[];

/** A UDP port free on 127.0.0.1 now (bound, read, released): for a port the test must name. */
export async function freeUdpPort(): Promise<number> {
  const s = dgram.createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/**
 * A NatNet client on 127.0.0.1 of the server whose command socket is 127.0.0.1:`commandPort`, with
 * `more` of its options; not yet connected (a test listens before it connects).
 */
export function loopbackClient(
  cleanups: Cleanups,
  commandPort: number,
  more: Omit<NatNetClientOptions, 'serverAddress' | 'commandPort' | 'localAddress'> = {},
): NatNetClient {
  const client = new NatNetClient({
    serverAddress: '127.0.0.1',
    commandPort,
    localAddress: '127.0.0.1',
    ...more,
  });
  cleanups.push(() => client.close());
  return client;
}

/**
 * The virtual Motive on 127.0.0.1 (`server`'s options; its command port picked by the system, its
 * data port a free one) streaming `poses`, started, and a client of it (loopbackClient with
 * `client`'s options).
 */
export async function motiveAndClient(
  cleanups: Cleanups,
  server: Omit<VirtualNatNetServerOptions, 'address' | 'commandPort' | 'dataPort'>,
  poses: ReadonlyMap<string, TablePose>,
  client: Parameters<typeof loopbackClient>[2] = {},
): Promise<{ server: VirtualNatNetServer; client: NatNetClient; dataPort: number }> {
  const dataPort = await freeUdpPort();
  const motive = new VirtualNatNetServer({ ...server, address: '127.0.0.1', commandPort: 0, dataPort });
  motive.setPoseSource(() => poses);
  await motive.start();
  cleanups.push(() => motive.stop());
  return { server: motive, client: loopbackClient(cleanups, motive.commandPort, client), dataPort };
}

/**
 * A hand-driven NatNet server on 127.0.0.1, started: unicast in bitstream `version` (default 3.1),
 * its command socket on `commandPort` (default: one the system picks), model definitions from
 * `modelDefinitions`, a frame rate of 120 Hz. The caller stops it (a test may restart it).
 */
export async function startHandDrivenServer(o: {
  commandPort?: number;
  version?: NatNetVersion;
  modelDefinitions: () => ModelDefinitions;
}): Promise<NatNetServerTransport> {
  const transport = new NatNetServerTransport(
    {
      address: '127.0.0.1',
      commandPort: o.commandPort ?? 0,
      dataPort: 0,
      multicast: false,
      natNetVersion: o.version ?? [3, 1, 0, 0],
    },
    { modelDefinitions: o.modelDefinitions, frameRate: () => 120 },
  );
  await transport.start();
  return transport;
}
