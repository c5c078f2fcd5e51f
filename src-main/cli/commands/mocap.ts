/**
 * `parapush mocap ...`: motion capture from the command line.
 *   replay FILE     decode a pcap/pcapng capture or a folder of NatNet packet files (or --serve it)
 *   serve           run the virtual NatNet server from a scene
 *   listen          connect to Motive (or a virtual server) and print frames
 *   calibrate       fit and save the mocap -> table calibration of a setup from point pairs
 */
import type { Command } from 'commander';
import { z } from 'zod';
import { loadSceneFile } from '../../common/config-files';
import { readStoredJson } from '../../common/stored-json';
import { loadCapture } from '../../mocap/capture';
import { CalibrationError } from '../../calibration/fit';
import {
  fitCalibration2d,
  fitCalibration3d,
  identityCalibration,
  loadCalibration,
  saveCalibration,
  type Calibration,
} from '../../calibration/mocap-table';
import { NatNetClient } from '../../mocap/client';
import { DEFAULT_COMMAND_PORT, DEFAULT_DATA_PORT } from '../../mocap/message-ids';
import { CaptureDecoder, replayJson, replayLine, type ReplayFrame } from '../../mocap/replay';
import { serveCapture } from '../../virtual-lab/replay-serve';
import { parseVersion, type NatNetVersion } from '../../mocap/version';
import { VirtualNatNetServer } from '../../virtual-lab/natnet-server';
import { requireFile, UsageError } from '../errors';
import { untilStopped } from '../until-stopped';

function port(text: string, what: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError(`${what}: expected a port number, got "${text}"`);
  return n;
}

function fraction(text: string, what: string): number {
  const n = Number(text);
  if (!(n >= 0 && n <= 1)) throw new UsageError(`${what}: expected a probability in [0, 1], got "${text}"`);
  return n;
}

function nonNegative(text: string, what: string): number {
  const n = Number(text);
  if (!(n >= 0) || !Number.isFinite(n))
    throw new UsageError(`${what}: expected a number >= 0, got "${text}"`);
  return n;
}

function version(text: string): NatNetVersion {
  const v = parseVersion(text);
  if (!v || v[0] < 3)
    throw new UsageError(`--natnet: expected a NatNet version 3.0 or later (e.g. 3.1, 4.1), got "${text}"`);
  return v;
}

function upAxis(text: string): 'y' | 'z' {
  if (text !== 'y' && text !== 'z') throw new UsageError(`--up: expected y or z, got "${text}"`);
  return text;
}

interface TransportFlags {
  address: string;
  commandPort: string;
  dataPort: string;
  unicast?: boolean;
  interface?: string;
}

function transportOptions(o: TransportFlags) {
  return {
    address: o.address,
    commandPort: port(o.commandPort, '--command-port'),
    dataPort: port(o.dataPort, '--data-port'),
    multicast: !o.unicast,
    multicastInterface: o.interface ?? o.address,
  };
}

function addTransportOptions(cmd: Command): Command {
  return cmd
    .option('--address <ip>', 'address to serve on (command socket)', '127.0.0.1')
    .option('--command-port <port>', 'NatNet command port', String(DEFAULT_COMMAND_PORT))
    .option('--data-port <port>', 'NatNet data port (multicast)', String(DEFAULT_DATA_PORT))
    .option('--unicast', 'stream unicast to connected clients instead of multicast')
    .option('--interface <ip>', 'interface multicast leaves from (default: --address)');
}

const pairsSchema = z
  .array(
    z
      .object({
        mocap: z.tuple([z.number(), z.number(), z.number()]),
        table: z.union([z.tuple([z.number(), z.number()]), z.tuple([z.number(), z.number(), z.number()])]),
      })
      .strict(),
  )
  .min(3, 'need at least 3 point pairs');

export function registerMocapCommand(program: Command): void {
  const mocap = program
    .command('mocap')
    .description('OptiTrack motion capture: replay captures, virtual server, client');

  const replay = mocap
    .command('replay')
    .description(
      'decode a pcap/pcapng capture of Motive traffic (or a folder of packet files); one line per frame',
    )
    .argument('<file>', 'capture file or folder of NatNet packet files')
    .option('--json', 'one JSON object per frame: {frame, timestamp, rigidBodies}')
    .option('--serve', 're-stream the capture as a live NatNet source at its original timing')
    .option('--loop', 'with --serve: start over at the end')
    .option('--speed <factor>', 'with --serve: playback speed', '1')
    .option('--natnet <version>', 'NatNet version to decode with (default: from SERVERINFO, else detected)')
    .option(
      '--ports <list>',
      'UDP ports that carry NatNet in a capture',
      `${DEFAULT_COMMAND_PORT},${DEFAULT_DATA_PORT}`,
    );
  addTransportOptions(replay).action(
    async (
      file: string,
      o: TransportFlags & {
        json?: boolean;
        serve?: boolean;
        loop?: boolean;
        speed: string;
        natnet?: string;
        ports: string;
      },
    ) => {
      const ports = o.ports.split(',').map((p) => port(p.trim(), '--ports'));
      let capture;
      try {
        capture = loadCapture(file, { ports });
      } catch (err) {
        throw new UsageError(`${file}: ${(err as Error).message}`);
      }
      if (o.serve) {
        const speed = Number(o.speed);
        if (!(speed > 0)) throw new UsageError(`--speed: expected a number > 0, got "${o.speed}"`);
        const { signal } = untilStopped();
        const t = transportOptions(o);
        process.stderr.write(
          `serving ${capture.packets.length} packets from ${file} on ${t.address}:${t.commandPort} (${t.multicast ? 'multicast' : 'unicast'}); Ctrl-C stops\n`,
        );
        await serveCapture(capture.packets, { ...t, loop: o.loop === true, speed, signal });
        return;
      }
      const decoder = new CaptureDecoder(o.natnet ? version(o.natnet) : undefined);
      for (const p of capture.packets) {
        const frame: ReplayFrame | undefined = decoder.push(p);
        if (!frame) continue;
        process.stdout.write(`${o.json ? JSON.stringify(replayJson(frame)) : replayLine(frame)}\n`);
      }
      process.stderr.write(
        `${file}: ${decoder.summary()}${capture.skipped ? `, ${capture.skipped} unreadable records` : ''}\n`,
      );
      if (decoder.lastError) process.stderr.write(`last decode error: ${decoder.lastError}\n`);
    },
  );

  const serve = mocap
    .command('serve')
    .description('run the virtual NatNet server, streaming the rigid bodies of a scene')
    .requiredOption('--scene <file>', 'scene JSON file (pusher and sliders, named by rigidBody)')
    .option('--rate <hz>', 'frame rate', '120')
    .option('--natnet <version>', 'stream layout: 3.x or 4.1', '3.1')
    .option('--up <axis>', 'up axis of the stream: y (Motive default) or z', 'y')
    .option('--calibration <setup>', 'stream through this saved calibration (see mocap calibrate)')
    .option('--calibration-dir <dir>', 'where calibrations are saved', 'calibrations')
    .option('--noise <m>', 'Gaussian position noise (standard deviation, m)', '0')
    .option('--yaw-noise <rad>', 'Gaussian yaw noise (standard deviation, rad)', '0')
    .option('--latency <ms>', 'extra latency of every packet', '0')
    .option('--drop <p>', 'probability of dropping a frame', '0')
    .option('--corrupt <p>', 'probability of corrupting a packet', '0')
    .option('--lost <names>', 'comma-separated rigid bodies streamed as not tracked', '')
    .option('--seed <n>', 'seed of the fault generator', '1');
  addTransportOptions(serve).action(
    async (
      o: TransportFlags & {
        scene: string;
        rate: string;
        natnet: string;
        up: string;
        calibration?: string;
        calibrationDir: string;
        noise: string;
        yawNoise: string;
        latency: string;
        drop: string;
        corrupt: string;
        lost: string;
        seed: string;
      },
    ) => {
      const scene = loadSceneFile(o.scene);
      const rateHz = Number(o.rate);
      if (!(rateHz > 0 && rateHz <= 1000))
        throw new UsageError(`--rate: expected 0 < Hz <= 1000, got "${o.rate}"`);
      let calibration: Calibration | undefined;
      if (o.calibration) {
        try {
          calibration = loadCalibration(o.calibrationDir, o.calibration);
        } catch (err) {
          throw new UsageError((err as Error).message);
        }
      }
      const server = VirtualNatNetServer.fromScene(scene, {
        ...transportOptions(o),
        rateHz,
        natNetVersion: version(o.natnet),
        calibration: calibration ?? identityCalibration(upAxis(o.up)),
        faults: {
          positionNoise: nonNegative(o.noise, '--noise'),
          yawNoise: nonNegative(o.yawNoise, '--yaw-noise'),
          // The flag is in ms, as the operator reads latencies; the faults hold seconds.
          latency: nonNegative(o.latency, '--latency') / 1000,
          dropRate: fraction(o.drop, '--drop'),
          corruptRate: fraction(o.corrupt, '--corrupt'),
          lostTracking: o.lost ? o.lost.split(',').map((s) => s.trim()) : [],
          seed: Math.trunc(Number(o.seed)) || 1,
        },
      });
      await server.start();
      const names = server
        .modelDefinitions()
        .models.map((m) => (m.kind === 'rigidBody' ? `${m.name}#${m.id}` : ''));
      process.stderr.write(
        `virtual NatNet server on ${o.address}:${server.commandPort}, ${rateHz} Hz, rigid bodies ${names.join(', ')}; Ctrl-C stops\n`,
      );
      await untilStopped().done;
      await server.stop();
      const c = server.transport.counts;
      process.stderr.write(
        `sent ${c.framesSent} frames (${c.framesDropped} dropped, ${c.packetsCorrupted} corrupted)\n`,
      );
    },
  );

  mocap
    .command('listen')
    .description('connect to a NatNet server (Motive or virtual) and print frames')
    .option('--server <ip>', 'server address', '127.0.0.1')
    .option(
      '--local <ip>',
      'local interface: both sockets bind here, multicast is joined here (default: the one on the route to --server)',
      '0.0.0.0',
    )
    .option('--command-port <port>', 'server command port', String(DEFAULT_COMMAND_PORT))
    .option('--count <n>', 'stop after n frames (0: until Ctrl-C)', '0')
    .option('--json', 'one JSON object per frame')
    .action(
      async (o: { server: string; local: string; commandPort: string; count: string; json?: boolean }) => {
        const count = Math.trunc(nonNegative(o.count, '--count'));
        const client = new NatNetClient({
          serverAddress: o.server,
          localAddress: o.local,
          commandPort: port(o.commandPort, '--command-port'),
        });
        const info = await client.connect().catch((err: Error) => {
          throw new UsageError(err.message);
        });
        process.stderr.write(
          `connected to ${info.appName} (NatNet ${info.natNetVersion.join('.')}, ${info.multicast ? `multicast ${info.multicastAddress}:${info.dataPort}` : 'unicast'})\n`,
        );
        const { signal, done } = untilStopped();
        // Frames that arrive before the model definitions carry ids only: wait for the names (at
        // most a second; a server that never sends them is listed by id).
        if (!client.modelDefs)
          await new Promise<void>((resolve) => {
            const timer = setTimeout(stopWaiting, 1000);
            const off = client.on('modelDef', stopWaiting);
            function stopWaiting(): void {
              clearTimeout(timer);
              off();
              resolve();
            }
          });
        let seen = 0;
        const finished = new Promise<void>((resolve) => {
          signal.addEventListener('abort', () => resolve(), { once: true });
          client.on('frame', (frame, snapshot) => {
            const names = new Map(
              snapshot.rigidBodies.flatMap((b) => (b.name ? [[b.id, b.name] as const] : [])),
            );
            const r: ReplayFrame = { frame, captureTime: undefined, names };
            process.stdout.write(`${o.json ? JSON.stringify(replayJson(r)) : replayLine(r)}\n`);
            if (count > 0 && ++seen >= count) resolve();
          });
        });
        await Promise.race([finished, done]);
        const s = client.getStats();
        process.stderr.write(
          `${s.frames} frames, ${s.frameRate.toFixed(1)} Hz, ${s.droppedFrames} dropped, ${s.decodeErrors} undecodable` +
            (s.totalLatency !== undefined ? `, latency ${(s.totalLatency * 1000).toFixed(2)} ms` : '') +
            '\n',
        );
        await client.close();
      },
    );

  mocap
    .command('calibrate')
    .description('fit the mocap -> table calibration from >= 3 point pairs and save it for a setup')
    .requiredOption(
      '--pairs <file>',
      'JSON: [{"mocap": [x, y, z], "table": [x, y] or [x, y, z]}, ...] in metres',
    )
    .requiredOption('--setup <name>', 'setup name (the file is DIR/NAME.json)')
    .option('--dir <dir>', 'where calibrations are saved', 'calibrations')
    .option('--up <axis>', 'up axis of the mocap stream: y or z', 'y')
    .option('--planar', 'fit yaw + translation only (3 dof) instead of a full 3D rigid transform')
    .action((o: { pairs: string; setup: string; dir: string; up: string; planar?: boolean }) => {
      requireFile(o.pairs, '--pairs');
      const pairs = readStoredJson(o.pairs, pairsSchema, { what: 'calibration pairs', error: UsageError });
      let c: Calibration;
      try {
        c = (o.planar ? fitCalibration2d : fitCalibration3d)(pairs, upAxis(o.up), o.setup);
      } catch (err) {
        if (err instanceof CalibrationError || err instanceof z.ZodError)
          throw new UsageError((err as Error).message);
        throw err;
      }
      const file = saveCalibration(o.dir, c);
      process.stdout.write(
        `${file}: ${c.kind} fit of ${c.residual.pairs} pairs, residual rms ${(c.residual.rms * 1000).toFixed(2)} mm, max ${(c.residual.max * 1000).toFixed(2)} mm\n`,
      );
    });
}
