/**
 * Parsing of `--controls`: inline JSON or a path to a JSON file, an array of controls: [vx, vy] in
 * m/s for the pusher, [vx, vy, yaw rate, opening speed] (m/s, rad/s, m/s) for a gripper scene.
 */
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { controlLimits, endEffectorOf, type ToolEntries } from '#contract/end-effector/registry';
import { integratorSchema, type Integrator, type Scene } from '#contract/scene';
import { noSuchFile, UsageError } from './errors';

const controlsSchema = z.array(z.array(z.number())).min(1);

export type Controls = number[][];

export function parseControls(arg: string, scene: ToolEntries & Pick<Scene, 'limits'>): Controls {
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
  const tool = endEffectorOf(scene);
  const dimension = tool.inputs.length;
  const parsed = controlsSchema.safeParse(json);
  if (!parsed.success || parsed.data.some((u) => u.length !== dimension)) {
    const names = tool.inputs.map((i) => i.name).join(', ');
    const units = [...new Set(tool.inputs.map((i) => i.unit))];
    throw new UsageError(
      dimension === 2 && units.length === 1
        ? `--controls: expected a non-empty array of [${names}] pairs in ${units[0]}, e.g. [[0.05,0],[0.05,0]]`
        : `--controls: expected a non-empty array of [${names}] in ${tool.inputs.map((i) => i.unit).join(', ')} (the scene's robot is the ${tool.title}), e.g. [[${[0.05, ...new Array<number>(dimension - 1).fill(0)].join(',')}]]`,
    );
  }
  const limits = controlLimits(scene);
  const { maxSpeed } = limits;
  parsed.data.forEach((u, i) => {
    const speed = Math.hypot(u[0]!, u[1]!);
    if (speed > maxSpeed + 1e-12) {
      throw new UsageError(
        `--controls[${i}]: speed ${speed.toFixed(4)} m/s exceeds the scene limit ${maxSpeed} m/s`,
      );
    }
    // The inputs limited one by one (a yaw rate, an opening speed); x and y by the speed above.
    tool.inputs.forEach(({ name, unit, limit }, j) => {
      const max = limit === undefined ? Infinity : (limits[limit] ?? 0);
      if (Math.abs(u[j]!) > max + 1e-12)
        throw new UsageError(
          `--controls[${i}][${j}]: ${name} ${u[j]} ${unit} exceeds the scene limit ${max} ${unit}`,
        );
    });
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
