/** A session log's prediction error per executed control (/planner/prediction-error), summed up for the Sessions view. */
import { runPredictionError, type RunPredictionError } from '#contract/prediction-error';
import type { MessageOf } from './channels';
import type { SessionLog } from './reader';

export async function loggedPredictionError(log: SessionLog): Promise<RunPredictionError | null> {
  const steps: MessageOf<'/planner/prediction-error'>[] = [];
  for await (const m of log.messages(['/planner/prediction-error']))
    steps.push(m.message as MessageOf<'/planner/prediction-error'>);
  return runPredictionError(steps);
}
