/**
 * The Robotiq's position range, measured at activation and kept per gripper. A 2F-85 reads about
 * 3 fully open and about 227-230 fully closed, not 0 and 255, so a linear 0..255 map is off by
 * several millimetres (about 9 mm closed). Like ur_rtde's auto-calibrate (robotiq_gripper.cpp):
 * open fully and read the position, close fully on nothing and read it, open again; gaps are then
 * mapped between the two readings. The record lives in the user's data folder, one file per
 * gripper (by the robot's address, where the URCap answers).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { FingerDevice } from './finger-device';
import { GripperError, type PositionRange } from './gripper';

/**
 * The least travel (register units) a measured range may span: a 2F-85 or 2F-140 spans about 225;
 * much less means the fingers did not travel end to end (a stuck finger, an object).
 */
const MIN_SPAN = 150;

export const positionRangeSchema = z
  .object({
    open: z.number().int().min(0).max(255),
    closed: z.number().int().min(0).max(255),
    /** ISO time of the measurement. */
    measuredAt: z.string(),
  })
  .strict()
  .refine((r) => r.closed - r.open >= MIN_SPAN, {
    message: `a gripper's closed position must read at least ${MIN_SPAN} above its open one`,
  });

export type MeasuredRange = z.infer<typeof positionRangeSchema>;

export function gripperRecordDir(): string {
  return process.env.PARAPUSH_GRIPPER_DIR ?? path.join(os.homedir(), '.parapush', 'grippers');
}

function recordFile(host: string, dir: string): string {
  return path.join(dir, `${host.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);
}

/** The range last measured on the gripper at `host`, or undefined (none, or a record that does not parse). */
export function loadGripperRange(host: string, dir = gripperRecordDir()): MeasuredRange | undefined {
  try {
    return positionRangeSchema.parse(JSON.parse(readFileSync(recordFile(host, dir), 'utf8')));
  } catch {
    return undefined;
  }
}

export function saveGripperRange(host: string, range: MeasuredRange, dir = gripperRecordDir()): string {
  mkdirSync(dir, { recursive: true });
  const file = recordFile(host, dir);
  writeFileSync(file, `${JSON.stringify(positionRangeSchema.parse(range), null, 2)}\n`);
  return file;
}

/**
 * Measures an activated gripper's range: fully open, fully closed on nothing, open again. The
 * fingers must be free: an object between them is a GripperError that says so.
 */
export async function measureGripperRange(gripper: FingerDevice): Promise<MeasuredRange> {
  const open = (await gripper.openFully()).position;
  const closed = (await gripper.closeFully()).position;
  await gripper.openFully();
  const range = { open, closed, measuredAt: new Date().toISOString() };
  const parsed = positionRangeSchema.safeParse(range);
  if (!parsed.success)
    throw new GripperError(
      `gripper range ${open}..${closed} is too narrow: the fingers did not travel end to end`,
    );
  return parsed.data;
}

/** The range as the gap mapping takes it. */
export function asPositionRange(r: MeasuredRange): PositionRange {
  return { open: r.open, closed: r.closed };
}
