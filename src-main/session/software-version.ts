/** The software version written into every session log: package name and version. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { appRoot } from '../common/paths';

const packageSchema = z.object({ name: z.string(), version: z.string() });

let cached: { name: string; version: string } | undefined;

export function softwareVersion(): { name: string; version: string } {
  if (!cached) {
    try {
      cached = packageSchema.parse(JSON.parse(readFileSync(path.join(appRoot, 'package.json'), 'utf8')));
    } catch {
      // A packaged app without its package.json still logs; the version is then unknown.
      cached = { name: 'parapush', version: 'unknown' };
    }
  }
  return cached;
}
