/**
 * The console's Foxglove live view as an operator setting: off by default, turned on (on a port of
 * 127.0.0.1) or off from the Setup view, `parapush web --foxglove` or $PARAPUSH_FOXGLOVE_PORT in
 * the app. Its tap goes to the session recorder once, at start-up; it passes each message to
 * whichever server is on now, so turning the view on mid-run serves the rest of that run. One
 * token serves the whole launch: turning the view off and on again keeps the URL a viewer saved.
 */
import type { FoxgloveStatus } from '#contract/console-api';
import { newToken } from '../common/loopback-guard';
import { FoxgloveLive } from '../session/foxglove-live';
import type { MessageTap } from '../session/recorder';

export interface FoxgloveSwitchOptions {
  /** Browser origins allowed besides the desktop apps' (`--foxglove-origin`). */
  origins?: readonly string[];
  /** Fixed token for tests; random per launch otherwise. */
  token?: string;
}

export class FoxgloveSwitch {
  private live: FoxgloveLive | null = null;
  /** The last change, so that two quick changes apply in order. */
  private changing: Promise<unknown> = Promise.resolve();
  private readonly token: string;
  private readonly origins: readonly string[];

  constructor(o: FoxgloveSwitchOptions = {}) {
    this.token = o.token ?? newToken();
    this.origins = o.origins ?? [];
  }

  /** The recorder's tap: to the live server when on, nowhere when off. */
  readonly tap: MessageTap = (topic, logTime, data) => this.live?.tap(topic, logTime, data);

  /** Where a viewer connects, token included; null when off. */
  status(): FoxgloveStatus {
    return { url: this.live?.url ?? null };
  }

  /**
   * Serves on 127.0.0.1:`port` (0: a free port), or stops serving for null. A port in use is
   * refused with the reason and leaves the view as it was.
   */
  set(port: number | null): Promise<FoxgloveStatus> {
    const next = this.changing.then(async () => {
      if (port !== null && this.live && (port === 0 || this.live.port === port)) return this.status();
      const started = port === null ? null : await this.start(port);
      const previous = this.live;
      this.live = started;
      await previous?.close();
      return this.status();
    });
    this.changing = next.catch(() => undefined);
    return next;
  }

  close(): Promise<unknown> {
    return this.set(null);
  }

  private async start(port: number): Promise<FoxgloveLive> {
    try {
      return await FoxgloveLive.start({ port, token: this.token, origins: this.origins });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
        throw new Error(`port ${port} on 127.0.0.1 is in use: choose another (or 0 for a free one)`, {
          cause: err,
        });
      throw err;
    }
  }
}
