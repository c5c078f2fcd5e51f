/** The software version written into every session log: package name and version. */
import path from 'node:path';
import { z } from 'zod';
import { appRoot } from '../common/paths';
import { readStoredJson } from '../common/stored-json';

const packageSchema = z.object({ name: z.string(), version: z.string() });

let cached: { name: string; version: string } | undefined;

export function softwareVersion(): { name: string; version: string } {
  if (!cached) {
    try {
      cached = readStoredJson(path.join(appRoot, 'package.json'), packageSchema);
    } catch {
      // A packaged app without its package.json still logs; the version is then unknown.
      cached = { name: 'parapush', version: 'unknown' };
    }
  }
  return cached;
}
