/**
 * Reading back a JSON file the program or the operator stored (settings, setups, tasks, data-set
 * manifests, experiment results) against its zod schema. One reader, so that every such file fails
 * the same way: the message starts with the file, then says that it is missing, cannot be read, is
 * not JSON, or which fields are wrong, one line each (`sliders[0].pose.x: ...`).
 */
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { problemsOf } from '#contract/scene-file';

export type StoredJsonProblem = { path: string; message: string };

/** What went wrong, for callers that answer each differently (a missing file is often no error). */
export type StoredJsonFault = 'missing' | 'unreadable' | 'not-json' | 'invalid';

export class StoredJsonError extends Error {
  override name = 'StoredJsonError';
  constructor(
    readonly file: string,
    readonly fault: StoredJsonFault,
    /** The wrong fields of an invalid file; one problem at the root for the other faults. */
    readonly problems: readonly StoredJsonProblem[],
    message: string,
  ) {
    super(message);
  }
}

export interface StoredJsonOptions {
  /** What the file holds, as the message says it: "invalid lab setup". */
  what?: string;
  /**
   * The error the caller's own callers catch (TaskFileError, DatasetError, ...); it is thrown with
   * the same message and the StoredJsonError as its cause.
   */
  error?: new (message: string, options?: ErrorOptions) => Error;
}

function fail(options: StoredJsonOptions, error: StoredJsonError): never {
  throw options.error ? new options.error(error.message, { cause: error }) : error;
}

/** The file's contents as `schema` gives them back; throws StoredJsonError (or `options.error`). */
export function readStoredJson<S extends z.ZodType>(
  file: string,
  schema: S,
  options: StoredJsonOptions = {},
): z.output<S> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      fail(
        options,
        new StoredJsonError(
          file,
          'missing',
          [{ path: '', message: 'no such file' }],
          `no such file: ${file}`,
        ),
      );
    const message = `cannot read: ${(err as Error).message}`;
    fail(options, new StoredJsonError(file, 'unreadable', [{ path: '', message }], `${file}: ${message}`));
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    const message = `not valid JSON: ${(err as Error).message}`;
    fail(options, new StoredJsonError(file, 'not-json', [{ path: '', message }], `${file}: ${message}`));
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const problems = problemsOf(parsed.error);
  const lines = problems.map((p) => `  ${p.path || '(root)'}: ${p.message}`);
  const what = options.what ?? 'contents';
  fail(
    options,
    new StoredJsonError(file, 'invalid', problems, `${file}: invalid ${what}\n${lines.join('\n')}`),
  );
}
