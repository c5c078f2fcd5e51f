/** Parsing of `--controls`: inline JSON or a path to a JSON file, an array of [vx, vy] in m/s. */
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { integratorSchema, type Integrator } from '../contract/scene';
import { noSuchFile, UsageError } from './errors';

const controlsSchema = z.array(z.tuple([z.number(), z.number()])).min(1);

export type Controls = [number, number][];

export function parseControls(arg: string, maxSpeed: number): Controls {
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
  const parsed = controlsSchema.safeParse(json);
  if (!parsed.success) {
    throw new UsageError(
      '--controls: expected a non-empty array of [vx, vy] pairs in m/s, e.g. [[0.05,0],[0.05,0]]',
    );
  }
  parsed.data.forEach(([vx, vy], i) => {
    const speed = Math.hypot(vx, vy);
    if (speed > maxSpeed + 1e-12) {
      throw new UsageError(
        `--controls[${i}]: speed ${speed.toFixed(4)} m/s exceeds the scene limit ${maxSpeed} m/s`,
      );
    }
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
