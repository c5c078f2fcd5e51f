/**
 * Which lab the console connects to: the in-process virtual lab (the default) or a real one
 * (robot and Motive hosts, the setup file with its calibrations). Read from a JSON file the
 * operator writes once per lab PC (read by common/config-files.ts); the console never guesses a
 * real lab.
 */
import { z } from 'zod';

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
