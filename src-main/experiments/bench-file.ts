/**
 * Reading a committed bench result (bench/results/NAME.json, written by `npm run bench -- NAME`)
 * for a generated block of a page, and saying where its figures come from: the file, and the
 * commit, machine, date and load its own `machine` stamp records. Results written before the
 * benches recorded their commit say so rather than guess one.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { readStoredJson } from '../common/stored-json';

/** The stamp bench/report.ts writes beside every result (older results lack the load). */
export const benchMachineSchema = z.object({
  cpu: z.string(),
  cores: z.number().int(),
  node: z.string(),
  date: z.string(),
  loadAtStart: z.number().optional(),
  /** The commit whose code ran (-dirty: with local changes); absent in older results. */
  commit: z.string().optional(),
});
export type BenchMachine = z.infer<typeof benchMachineSchema>;

/** The path of a bench's result, relative to the repository root. */
export const benchPath = (name: string): string => `bench/results/${name}.json`;

/** The bench's committed result read against `schema`, or undefined when none is committed. */
export function readBench<S extends z.ZodType>(
  root: string,
  name: string,
  schema: S,
): z.infer<S> | undefined {
  const file = path.join(root, benchPath(name));
  if (!existsSync(file)) return undefined;
  return readStoredJson(file, schema, { what: `bench result ${name}` });
}

/** Where a block's figures come from: "`bench/results/robot.json`, recorded 2026-11-21 on ...". */
export function provenanceText(name: string, machine: BenchMachine): string {
  const load = machine.loadAtStart === undefined ? '' : `, load average ${machine.loadAtStart} at the start`;
  const commit = machine.commit
    ? `at commit \`${machine.commit.slice(0, 12)}\`${machine.commit.endsWith('-dirty') ? ' with local changes' : ''}`
    : 'the file records no commit';
  return `\`${benchPath(name)}\`, recorded ${machine.date.slice(0, 10)} on ${machine.cores} cores (${machine.cpu}, Node ${machine.node}${load}); ${commit}`;
}

/** What a block says while its bench has no committed result. */
export const notMeasured = (name: string, command = `npm run bench -- ${name}`): string =>
  `Not measured: no \`${benchPath(name)}\` is committed (\`${command}\` writes it).`;

/**
 * A page block made from one committed bench result stamped with its machine: `render` gives the
 * block's lines from the result and the sentence saying where its figures come from
 * (provenanceText); while no result is committed the block says it is not measured. A result that
 * does not match `schema` throws, naming the file and the wrong fields (readStoredJson).
 */
export function benchTable<S extends z.ZodType<{ machine: BenchMachine }>>(
  name: string,
  schema: S,
  render: (result: z.infer<S>, provenance: string) => readonly string[],
): (root: string) => string {
  return (root) => {
    const r = readBench(root, name, schema);
    return r ? render(r, provenanceText(name, r.machine)).join('\n') : notMeasured(name);
  };
}

/** Fixed decimals. */
export const fixed = (x: number, digits: number): string => x.toFixed(digits);
