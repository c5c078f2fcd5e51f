/**
 * The live Foxglove view's options, one spelling for every command that serves it (`run`, `web`,
 * `log serve`): `--foxglove [PORT]` and `--foxglove-origin ORIGIN` (repeatable, or a comma list)
 * for a browser app such as https://app.foxglove.dev; the desktop apps need none.
 */
import { Option } from 'commander';
import { FoxgloveLive, foxgloveOrigins, foxglovePort } from '../session/foxglove-live';
import { UsageError } from './errors';

export interface LiveViewFlags {
  foxglove?: string | true;
  foxgloveOrigin?: string[];
}

export function foxgloveOriginOption(): Option {
  return new Option(
    '--foxglove-origin <origin>',
    'also let a browser app at this origin open the live view, e.g. https://app.foxglove.dev (repeatable; Foxglove and Lichtblick desktop need none)',
  )
    .argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value])
    .default([]);
}

/** The port (null: off; `onByDefault` turns the flag's absence into the default port) and origins. */
export function liveViewOptions(
  flags: LiveViewFlags,
  onByDefault = false,
): { port: number | null; origins: string[] } {
  let port;
  try {
    port = foxglovePort(flags.foxglove ?? (onByDefault ? true : undefined));
  } catch (err) {
    throw new UsageError(`--foxglove: ${(err as Error).message}`);
  }
  try {
    return { port, origins: foxgloveOrigins(flags.foxgloveOrigin ?? []) };
  } catch (err) {
    throw new UsageError(`--foxglove-origin: ${(err as Error).message}`);
  }
}

/** The live view of `--foxglove`; a port in use is the user's to change. */
export async function startLive(port: number, origins: readonly string[]): Promise<FoxgloveLive> {
  try {
    return await FoxgloveLive.start({ port, origins });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new UsageError(`--foxglove: port ${port} on 127.0.0.1 is in use: give another (or 0)`);
    throw err;
  }
}
