/** A session log that cannot be read as it is: empty, foreign, cut short, damaged. The message says which. */
export class SessionLogError extends Error {
  override name = 'SessionLogError';

  /** Whether recovery can make it readable (cut short or damaged, not empty or foreign). */
  readonly recoverable: boolean;

  constructor(message: string, options: { recoverable?: boolean } = {}) {
    super(message);
    this.recoverable = options.recoverable ?? false;
  }
}

/** Library errors run to several lines and long hex dumps: one line of at most 200 characters. */
function oneLine(reason: string): string {
  const line = reason.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** A log cut short or damaged, named with the file and what to do, in one line. */
export function damagedLog(file: string, reason: string): SessionLogError {
  return new SessionLogError(
    `${file}: the log is cut short or damaged (${oneLine(reason)}); recover it with "parapush log recover ${file}"`,
    { recoverable: true },
  );
}
