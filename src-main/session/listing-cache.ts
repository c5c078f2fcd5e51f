/**
 * What the Sessions list learnt about each log, kept in the sessions folder
 * (.sessions-index.json) so a log is read through once, not on every listing: a big log without a
 * stored summary takes seconds to summarise, and checking a log's chunks reads all of it. An
 * entry holds while the file's size and modification time are those it was made from; a log
 * still being recorded is never cached. A cache that cannot be read or written is only slower.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { sessionSummarySchema } from '#contract/console-api';

export const LISTING_CACHE_FILE = '.sessions-index.json';

const entrySchema = z
  .object({
    size: z.number().int().min(0),
    /** Last modified, s since the epoch. */
    modified: z.number(),
    state: z.enum(['complete', 'needs-recovery', 'unreadable']),
    summary: sessionSummarySchema.nullable(),
    problem: z.string().nullable(),
  })
  .strict();
// Version 2: `modified` in s (version 1 held the ms of stat's mtimeMs); an older cache is rebuilt.
const cacheSchema = z.object({ version: z.literal(2), logs: z.record(z.string(), entrySchema) }).strict();

export type ListingEntry = z.infer<typeof entrySchema>;

/** The file's identity as far as the cache is concerned. */
export interface FileStamp {
  size: number;
  /** Last modified, s since the epoch. */
  modified: number;
}

export class ListingCache {
  private changed = false;

  private constructor(
    private readonly file: string,
    private readonly logs: Record<string, ListingEntry>,
  ) {}

  static async load(dir: string): Promise<ListingCache> {
    const file = path.join(dir, LISTING_CACHE_FILE);
    try {
      return new ListingCache(file, cacheSchema.parse(JSON.parse(await readFile(file, 'utf8'))).logs);
    } catch {
      return new ListingCache(file, {});
    }
  }

  /** The entry of a log whose file has not changed since; undefined otherwise. */
  get(name: string, stamp: FileStamp): ListingEntry | undefined {
    const entry = this.logs[name];
    return entry && entry.size === stamp.size && entry.modified === stamp.modified ? entry : undefined;
  }

  set(name: string, entry: ListingEntry): void {
    this.logs[name] = entry;
    this.changed = true;
  }

  /** Writes the entries of the logs in `names` (others are gone), if anything changed. */
  async save(names: readonly string[]): Promise<void> {
    const kept = Object.fromEntries(names.filter((n) => this.logs[n]).map((n) => [n, this.logs[n]!]));
    if (!this.changed && Object.keys(kept).length === Object.keys(this.logs).length) return;
    const temp = `${this.file}.${process.pid}.tmp`;
    try {
      await writeFile(temp, `${JSON.stringify({ version: 2, logs: kept })}\n`);
      await rename(temp, this.file);
      this.changed = false;
    } catch {
      // A read-only folder: listings stay correct, only slower.
    }
  }
}
