/**
 * Parsing of `--controls`: inline JSON or a path to a JSON file, an array of controls: [vx, vy] in
 * m/s for the pusher, [vx, vy, yaw rate, opening speed] (m/s, rad/s, m/s) for a gripper scene.
 */
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { controlLimits, integratorSchema, type Integrator, type Scene } from '#contract/scene';
import { noSuchFile, UsageError } from './errors';

const controlsSchema = z.array(z.array(z.number())).min(1);

export type Controls = number[][];

export function parseControls(arg: string, scene: Pick<Scene, 'gripper' | 'limits'>): Controls {
  const isFile = existsSync(arg);
  // Inline JSON starts with a bracket; anything else names a file, so say that one is missing.
  if (!isFile && !/^\s*[[{]/.test(arg)) throw noSuchFile(arg, '--controls');
  const text = isFile ? readFileSync(arg, 'utf8') : arg;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`--controls: not valid JSON: ${arg.slice(0, 80)}`);
  }
  const gripper = scene.gripper !== undefined;
  const dimension = gripper ? 4 : 2;
  const parsed = controlsSchema.safeParse(json);
  if (!parsed.success || parsed.data.some((u) => u.length !== dimension)) {
    throw new UsageError(
      gripper
        ? "--controls: expected a non-empty array of [vx, vy, yaw rate, opening speed] in m/s, rad/s, m/s (the scene's robot is a gripper), e.g. [[0.05,0,0,0]]"
        : '--controls: expected a non-empty array of [vx, vy] pairs in m/s, e.g. [[0.05,0],[0.05,0]]',
    );
  }
  const { maxSpeed, maxYawRate = 0, maxOpeningSpeed = 0 } = controlLimits(scene);
  parsed.data.forEach((u, i) => {
    const speed = Math.hypot(u[0]!, u[1]!);
    if (speed > maxSpeed + 1e-12) {
      throw new UsageError(
        `--controls[${i}]: speed ${speed.toFixed(4)} m/s exceeds the scene limit ${maxSpeed} m/s`,
      );
    }
    if (gripper && Math.abs(u[2]!) > maxYawRate + 1e-12)
      throw new UsageError(
        `--controls[${i}][2]: yaw rate ${u[2]} rad/s exceeds the scene limit ${maxYawRate} rad/s`,
      );
    if (gripper && Math.abs(u[3]!) > maxOpeningSpeed + 1e-12)
      throw new UsageError(
        `--controls[${i}][3]: opening speed ${u[3]} m/s exceeds the scene limit ${maxOpeningSpeed} m/s`,
      );
  });
  return parsed.data;
}

export function parseDuration(arg: string): number {
  const dt = Number(arg);
  if (!Number.isFinite(dt) || dt <= 0)
    throw new UsageError(`--dt: expected a positive number of seconds, got "${arg}"`);
  return dt;
}

/**
 * INTEGRATOR:MS (RK4:1, euler:2) as fine-model settings in SI units; the integrator's case does
 * not matter. Only the spelling is checked here: limits are the schema's of whatever takes it.
 */
export function parseFineSpec(
  flag: string,
  spec: string,
): { integrator: Integrator | string; timestep: number } {
  const m = /^\s*([^:]*?)\s*:\s*([^:]*?)\s*$/.exec(spec);
  const ms = m && m[2] !== '' ? Number(m[2]) : Number.NaN;
  if (!m || m[1] === '' || !Number.isFinite(ms))
    throw new UsageError(`${flag}: expected INTEGRATOR:MS (e.g. RK4:1 or Euler:2), got "${spec}"`);
  const name = m[1]!;
  const integrator = integratorSchema.options.find((i) => i.toLowerCase() === name.toLowerCase()) ?? name;
  return { integrator, timestep: ms / 1000 };
}
