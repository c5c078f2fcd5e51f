/**
 * Which lab the console connects to: the in-process virtual lab (the default) or a real one
 * (robot and Motive hosts, the setup file with its calibrations). Read from a JSON file the
 * operator writes once per lab PC; the console never guesses a real lab.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { problemsOf } from './scene-file';

const port = z.number().int().min(1).max(65535);

export const labSettingsSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('virtual'),
      /** NatNet over multicast on 127.0.0.1 (as Motive streams) instead of unicast. */
      multicast: z.boolean().default(false),
    })
    .strict(),
  z
    .object({
      kind: z.literal('real'),
      robotHost: z.string().min(1),
      mocapHost: z.string().min(1),
      /** Local interface for NatNet; default 127.0.0.1 for a loopback server, else 0.0.0.0. */
      mocapLocal: z.string().min(1).optional(),
      /** Lab setup file (calibrations); default <setup dir>/<robotHost>.json. */
      setupFile: z.string().min(1).optional(),
      ports: z
        .object({
          rtde: port.optional(),
          dashboard: port.optional(),
          script: port.optional(),
          gripper: port.optional(),
          natnetCommand: port.optional(),
        })
        .strict()
        .optional(),
    })
    .strict(),
]);
export type LabSettings = z.infer<typeof labSettingsSchema>;
export type RealLabSettings = Extract<LabSettings, { kind: 'real' }>;

export const virtualLabSettings: LabSettings = { kind: 'virtual', multicast: false };

/** The lab settings in `file`; the virtual lab when there is no file. Throws with field paths. */
export function loadLabSettings(file: string | null): LabSettings {
  if (!file) return virtualLabSettings;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: cannot read the lab settings: ${(err as Error).message}`, { cause: err });
  }
  const r = labSettingsSchema.safeParse(json);
  if (!r.success)
    throw new Error(
      `${file}: invalid lab settings\n${problemsOf(r.error)
        .map((p) => `  ${p.path || '(root)'}: ${p.message}`)
        .join('\n')}`,
    );
  return r.data;
}
