/**
 * One supervised run on a run owner of its own, as `parapush run` makes it: the owner begun (with
 * the run's log, when given), the run, then the run released and the owner's fine workers stopped.
 * `signal` stands for the operator: its abort is the owner's.
 */
import { RunOwner } from '../../src-main/run/run-owner';
import type { RunRecorder } from '../../src-main/run/run-recorder';
import { ABORTED } from '../../src-main/run/run-report';
import {
  supervisedRun,
  type SupervisedRunOptions,
  type SupervisedRunResult,
} from '../../src-main/run/supervised-run';

export interface OwnedRunOptions extends Omit<SupervisedRunOptions, 'owner'> {
  workers?: number;
  /** The run's log: the owner records the run's events into it, the run its lab streams. */
  recorder?: RunRecorder;
  signal?: AbortSignal;
}

export async function ownedRun(o: OwnedRunOptions): Promise<SupervisedRunResult> {
  const { workers, recorder, signal, ...run } = o;
  const owner = new RunOwner(workers !== undefined ? { workers } : {});
  // A run through the real protocols without a console, as `parapush run` starts it.
  owner.begin('real', recorder ?? null);
  const abort = (): boolean => owner.abort(ABORTED);
  signal?.addEventListener('abort', abort, { once: true });
  try {
    return await supervisedRun({ ...run, owner });
  } finally {
    signal?.removeEventListener('abort', abort);
    owner.release();
    await owner.close();
  }
}
