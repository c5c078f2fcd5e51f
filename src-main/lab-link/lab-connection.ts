/**
 * The console's one live connection to a lab. A run asks for a link for its scene: the live one
 * is reused when it was made for the same scene, otherwise the old one is closed and a new one
 * opened (for the virtual lab that means restarting the lab on the new scene). Requests are
 * served one at a time so two runs can never race to open two labs.
 */
import type { Scene } from '#contract/scene';
import type { LabLink } from './lab-link';
import { saveSetup, type Setup } from '../calibration/setup-file';

/** One opened lab: its link, and how to close everything that was opened for it. */
export interface OpenedLab {
  link: LabLink;
  close(): Promise<void>;
  /** Puts the objects back on the scene's start poses: simulated labs only (people do it in a real one). */
  placeObjects?(): Promise<void>;
}

/**
 * Opens a lab for a scene; `notify` is told what opening waits for and why while it waits (RTDE
 * inputs held by a previous session), so the operator sees it then, not only afterwards.
 */
export type LabOpener = (scene: Scene, notify: (text: string) => void) => Promise<OpenedLab>;

export class LabConnection {
  private opened: { key: string; lab: OpenedLab } | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<() => void>();
  private closed = false;
  private waitingFor: string | null = null;

  constructor(
    readonly kind: 'virtual' | 'real',
    /** Where the lab is, in words for the operator. */
    readonly description: string,
    private readonly open: LabOpener,
    /** The setup file this lab is opened with, where saved calibrations go; null: cannot save. */
    readonly setupFile: string | null = null,
  ) {}

  /**
   * Saves a new setup (from the calibration wizard) to this lab's setup file and hands it to the
   * live link, so motion-capture poses and the pre-flight checklist use it at once.
   */
  saveSetup(setup: Setup): string {
    const link = this.current();
    if (!link) throw new Error(`not connected to the ${this.description}`);
    if (!this.setupFile) throw new Error(`the ${this.description} has no setup file to save to`);
    const file = saveSetup(this.setupFile, setup);
    link.useSetup(setup);
    return file;
  }

  /** What opening the lab waits for now, in the operator's words; null when it waits for nothing. */
  get notice(): string | null {
    return this.waitingFor;
  }

  /** The live link, or null while none is open. */
  current(): LabLink | null {
    return this.opened?.lab.link ?? null;
  }

  /** A link for this scene: the live one when it is for the same scene, else a fresh one. */
  linkFor(scene: Scene): Promise<LabLink> {
    const next = this.queue.then(() => this.switchTo(scene));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Resets the live lab's objects to the scene's start poses when the lab can do that itself;
   * false when it cannot (a real lab) or nothing is open.
   */
  async placeObjects(): Promise<boolean> {
    const place = this.opened?.lab.placeObjects;
    if (!place) return false;
    await place();
    return true;
  }

  /** Calls back whenever the link changes (opened, replaced, closed); returns unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Closes the live lab when it is still the one with this link (it failed: a virtual lab's
   * thread ended), so the next request opens a fresh one.
   */
  drop(link: LabLink): Promise<void> {
    const next = this.queue.then(() => (this.opened?.lab.link === link ? this.release() : undefined));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Closes the live lab (the operator's Disconnect between runs); the next linkFor opens it again.
   * Served in turn with link requests, so it never cuts a link a request is opening.
   */
  disconnect(): Promise<void> {
    const next = this.queue.then(() => this.release());
    this.queue = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue;
    await this.release();
  }

  private async switchTo(scene: Scene): Promise<LabLink> {
    if (this.closed) throw new Error('the lab connection is closed');
    const key = JSON.stringify(scene);
    if (this.opened?.key === key) return this.opened.lab.link;
    await this.release();
    let lab: OpenedLab;
    try {
      lab = await this.open(scene, (text) => (this.waitingFor = text));
    } finally {
      this.waitingFor = null;
    }
    this.opened = { key, lab };
    this.changed();
    return lab.link;
  }

  private async release(): Promise<void> {
    const old = this.opened;
    if (!old) return;
    this.opened = null;
    this.changed();
    await old.lab.close();
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}
