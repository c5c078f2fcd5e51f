/**
 * The summary of one session that the session list and `parapush log info` show: when, which
 * scene, which prediction model, how it ended, how long, and how many messages per channel.
 * It is computed while a log is finalized and stored in the file as a metadata record, so
 * listing a folder of sessions reads a few hundred bytes per file.
 */
import { sessionSummarySchema, type SessionSummary } from '#contract/console-api';
import type { PlannerSettings } from '#contract/planner-settings';
import { outcomeOf, type RunPhase } from '#contract/run-lifecycle';
import {
  runModelSchema,
  runOutcomeRecordSchema,
  runStatusEventSchema,
  sessionInfoSchema,
  sessionLabSchema,
  sessionSettingsSchema,
  withAbsentNulls,
  type Topic,
} from './channels';
import { upgradeLegacyMessage, wallSecondsOf } from './legacy-messages';

export const SUMMARY_METADATA_NAME = 'parapush.session';

export { sessionSummarySchema, type SessionSummary };

/** A short name for the prediction model: "parareal K=2 (analytical coarse)", "fine (MuJoCo)". */
export function settingsModelLabel(s: PlannerSettings): string {
  switch (s.predictionModel) {
    case 'auto':
      // What auto chose is in `/run/model` (choiceModelLabel); a log without it never planned, or
      // was written before runs recorded it.
      return 'auto (fine or Parareal; the choice is not in this log)';
    case 'fine':
      return 'fine (MuJoCo)';
    case 'coarse':
      return `coarse (${s.coarseModel})`;
    case 'parareal': {
      const k = s.parareal.mode === 'iterations' ? `K=${s.parareal.iterations}` : 'adaptive K';
      return `parareal ${k}, ${s.slices} slices (${s.coarseModel} coarse)`;
    }
  }
}

/** What a run planned with, from `/run/model`: "auto: fine, 2 workers", "parareal:2, 4 workers". */
export function choiceModelLabel(c: { requested: string; model: string; workers: number }): string {
  const workers = `${c.workers} worker${c.workers === 1 ? '' : 's'}`;
  return c.requested === 'auto' ? `auto: ${c.model}, ${workers}` : `${c.model}, ${workers}`;
}

const decoder = new TextDecoder();

/** Folds messages in log order into a summary; only the rare channels are decoded. */
export class SummaryBuilder {
  private first: { logTime: bigint; wall: number } | null = null;
  private lastLogTime: bigint | null = null;
  private readonly counts: Record<string, number> = {};
  private sessionId: string | null = null;
  private origin: SessionSummary['origin'] = null;
  private mode: SessionSummary['mode'] = null;
  private scene: string | null = null;
  private model: string | null = null;
  /** What the run asked for (settings) and used (/run/model). */
  private prediction: NonNullable<SessionSummary['prediction']> | null = null;
  private version: string | null = null;
  /** The lab the run was on (its last record); null: the log names none (older logs). */
  private lab: NonNullable<SessionSummary['lab']> | null = null;
  private outcome: { outcome: string; detail: string | null } | null = null;
  private lastPhase: { phase: RunPhase; reason: string | null } | null = null;

  add(topic: string, logTime: bigint, data: Uint8Array): void {
    this.counts[topic] = (this.counts[topic] ?? 0) + 1;
    if (this.first === null) this.first = { logTime, wall: wallOf(data) };
    if (this.lastLogTime === null || logTime > this.lastLogTime) this.lastLogTime = logTime;
    switch (topic) {
      case '/session/info': {
        const m = sessionInfoSchema.safeParse(parse('/session/info', data));
        if (m.success) {
          this.sessionId = m.data.sessionId;
          this.origin = m.data.origin;
          this.version = `${m.data.software.name} ${m.data.software.version}`;
        }
        break;
      }
      case '/session/settings': {
        const json = parse('/session/settings', data);
        const parsed = sessionSettingsSchema.safeParse(json);
        // An older log's settings with since-renamed fields.
        const m = parsed.success ? parsed.data : upgradeLegacyMessage('/session/settings', json);
        if (m) {
          this.mode = m.mode;
          this.scene = m.scene.name;
          this.model = settingsModelLabel(m.settings);
          this.prediction = {
            requested: m.settings.predictionModel,
            model: null,
            workers: null,
            reason: null,
          };
        }
        break;
      }
      case '/run/model': {
        const m = runModelSchema.safeParse(parse('/run/model', data));
        if (m.success) {
          const { requested, model, workers, reason } = m.data;
          this.prediction = { requested, model, workers, reason };
          this.model = choiceModelLabel(m.data);
        }
        break;
      }
      case '/session/lab': {
        const m = sessionLabSchema.safeParse(parse('/session/lab', data));
        // A later record of a lab not (yet) connected does not undo what its devices said.
        const kind = m.success ? m.data.lab?.kind : undefined;
        if (kind && (kind !== 'unknown' || this.lab === null)) this.lab = kind;
        break;
      }
      case '/run/outcome': {
        const m = runOutcomeRecordSchema.safeParse(parse('/run/outcome', data));
        if (m.success) this.outcome = { outcome: m.data.outcome, detail: m.data.detail };
        break;
      }
      case '/run/status': {
        const m = runStatusEventSchema.safeParse(parse('/run/status', data));
        if (m.success)
          this.lastPhase = { phase: m.data.event.status.phase, reason: m.data.event.status.reason };
        break;
      }
    }
  }

  build(recovered: boolean): SessionSummary {
    const ended = this.outcome ?? endedPhase(this.lastPhase);
    return {
      sessionId: this.sessionId,
      startedAt: this.first && Number.isFinite(this.first.wall) ? wallSecondsOf(this.first.wall) : null,
      duration:
        this.first && this.lastLogTime !== null ? Number(this.lastLogTime - this.first.logTime) / 1e9 : 0,
      mode: this.mode,
      scene: this.scene,
      model: this.model,
      outcome: ended?.outcome ?? (recovered ? 'interrupted' : 'unknown'),
      outcomeDetail: ended?.detail ?? (recovered ? 'the log was cut short and recovered' : null),
      softwareVersion: this.version,
      lab: this.lab,
      origin: this.origin,
      prediction: this.prediction,
      recovered,
      messageCounts: { ...this.counts },
    };
  }
}

/** A run status that says how the run ended, if the last one did. */
function endedPhase(last: { phase: RunPhase; reason: string | null } | null) {
  const outcome = last ? outcomeOf(last.phase) : null;
  return last && outcome ? { outcome, detail: last.reason } : null;
}

/** A message's JSON with the null fields the writer left out put back. */
function parse(topic: Topic, data: Uint8Array): unknown {
  try {
    return withAbsentNulls(topic, JSON.parse(decoder.decode(data)));
  } catch {
    return undefined;
  }
}

/** The wall stamp of a message, read without decoding the rest; NaN when there is none. */
function wallOf(data: Uint8Array): number {
  const m = /"wall":(-?[0-9.eE+-]+)/.exec(decoder.decode(data.subarray(0, 200)));
  return m ? Number(m[1]) : Number.NaN;
}
