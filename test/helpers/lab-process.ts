/**
 * A virtual lab in a child process (`parapush lab`), as a real lab's devices run on machines of
 * their own: a test that stalls its own main thread must not stall the lab's motion capture and
 * robot with it. All ports are on 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { loadSceneFile } from '../../src-main/common/config-files';
import type { Scene } from '#contract/scene';
import { loadSetup, type Setup } from '../../src-main/calibration/setup-file';

const repoRoot = path.resolve(import.meta.dirname, '../..');

const portsSchema = z.object({
  rtde: z.number().int(),
  dashboard: z.number().int(),
  secondary: z.number().int(),
  gripper: z.number().int(),
  natnetCommand: z.number().int(),
});
const labInfoSchema = z.object({ ports: portsSchema, setup: z.string() });

export interface LabProcess {
  ports: z.infer<typeof portsSchema>;
  scene: Scene;
  setup: Setup;
  stop(): Promise<void>;
}

/**
 * Starts `parapush lab` on `sceneFile` (writing its files in `dir`); resolves once it listens.
 * `world` replaces the lab config's world settings.
 */
export async function startLabProcess(
  sceneFile: string,
  dir: string,
  world?: { noiseVariance: number; seed: number },
): Promise<LabProcess> {
  const config = path.join(dir, 'lab.json');
  const setupFile = path.join(dir, 'setup.json');
  const ports = {
    rtde: 0,
    dashboard: 0,
    secondary: 0,
    realtime: 0,
    gripper: 0,
    natnetCommand: 0,
    natnetData: 0,
  };
  writeFileSync(
    config,
    JSON.stringify({
      scene: sceneFile,
      ports,
      mocap: { multicast: false },
      robot: { unlockDelay: 0.3 },
      ...(world ? { world } : {}),
    }),
  );
  const child = spawn(
    process.execPath,
    [path.join(repoRoot, 'bin/parapush.mjs'), 'lab', '--config', config, '--setup-out', setupFile, '--json'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
      });
      child.once('exit', (code) => reject(new Error(`parapush lab exited (code ${code})`)));
    });
    const info = labInfoSchema.parse(JSON.parse(line));
    return { ports: info.ports, scene: loadSceneFile(sceneFile), setup: loadSetup(info.setup), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
