/** The console API's planner settings commands, and the planners the settings may choose. */
import { z } from 'zod';
import { plannerKindSchema, plannerPresetNameSchema, plannerSettingsSchema } from '../planner-settings';

/** A planner the console offers, as the planner registry lists it (src-main/planning/planners.ts). */
export const plannerKindEntrySchema = z
  .object({ kind: plannerKindSchema, name: z.string(), description: z.string() })
  .strict();
export type PlannerKindEntry = z.infer<typeof plannerKindEntrySchema>;

export const settingsCommands = [
  z.object({ type: z.literal('settings.get') }).strict(),
  z.object({ type: z.literal('settings.set'), settings: plannerSettingsSchema }).strict(),
  z.object({ type: z.literal('settings.preset'), preset: plannerPresetNameSchema }).strict(),
] as const;

export const settingsResults = {
  'settings.get': z.object({ settings: plannerSettingsSchema }).strict(),
  'settings.set': z.object({ settings: plannerSettingsSchema }).strict(),
  'settings.preset': z.object({ settings: plannerSettingsSchema }).strict(),
} as const;
