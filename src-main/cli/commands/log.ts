/**
 * `parapush log info FILE [--json]`, `parapush log export FILE --out DIR`, `parapush log recover
 * FILE`: summarize, export (a tidy CSV table per channel) and recover session logs.
 */
import type { Command } from 'commander';
import { exportCsv } from '../../session/csv-export';
import { SessionLog, SessionLogError } from '../../session/reader';
import { describeMocapHealth, mocapHealthOf } from '../../session/mocap-health';
import { describeStreamGaps, streamGapsOf } from '../../session/stream-gaps';
import { describeLoss } from '../../session/finalize';
import { recoverSessionFile } from '../../session/recovery';
import { serveRecordedSession } from '../../session/foxglove-playback';
import { foxgloveOriginOption, liveViewOptions, startLive, type LiveViewFlags } from '../live-view-options';
import { liveViewNotice } from '../../session/foxglove-live';
import { requireFile, UsageError } from '../errors';

/** Session-log problems are the user's to fix (wrong file, needs recovery): no stack trace. */
async function userErrors<T>(file: string, work: () => Promise<T>): Promise<T> {
  requireFile(file);
  try {
    return await work();
  } catch (err) {
    if (err instanceof SessionLogError) throw new UsageError(err.message);
    throw err;
  }
}

const when = (seconds: number | null): string =>
  seconds === null ? 'unknown' : new Date(seconds * 1000).toISOString();

export function registerLogCommand(program: Command): void {
  const log = program.command('log').description('inspect, export and recover session logs (MCAP)');
  log
    .command('info')
    .description(
      'summary of a session log: date, scene, model, outcome, duration, motion-capture health, channels',
    )
    .argument('<file>', 'session log (.mcap)')
    .option('--json', 'print the summary as JSON')
    .action((file: string, opts: { json?: boolean }) =>
      userErrors(file, async () => {
        const session = await SessionLog.open(file);
        try {
          // A damaged chunk is named here, not left for whoever opens the log next.
          await session.verify();
          const summary = await session.summary();
          const channels = session.channelCounts();
          const mocap = await mocapHealthOf(session);
          const gaps = await streamGapsOf(session);
          if (opts.json) {
            process.stdout.write(`${JSON.stringify({ file, ...summary, mocap, gaps, channels }, null, 2)}\n`);
            return;
          }
          const lines = [
            `file:      ${file}`,
            `started:   ${when(summary.startedAt)}`,
            // The log's span, not a task time: an experiment table's task time is planning plus
            // the arm's moves in simulated time, and a console run's span also holds the checks.
            `duration:  ${summary.duration.toFixed(3)} s (first to last message, wall clock; not the task time)`,
            `origin:    ${summary.origin ?? 'unknown'}`,
            `mode:      ${summary.mode ?? 'unknown'}`,
            `lab:       ${summary.lab ?? (summary.origin === 'experiment' ? 'none (the simulated world)' : 'unknown')}`,
            `scene:     ${summary.scene ?? 'unknown'}`,
            `model:     ${summary.model ?? 'unknown'}`,
            ...(summary.prediction?.reason ? [`           chosen by ${summary.prediction.reason}`] : []),
            `outcome:   ${summary.outcome}${summary.outcomeDetail ? ` (${summary.outcomeDetail})` : ''}`,
            `software:  ${summary.softwareVersion ?? 'unknown'}`,
            `recovered: ${summary.recovered ? 'yes (cut short, recovered)' : 'no'}`,
            `mocap:     ${mocap ? describeMocapHealth(mocap) : 'no stream counters (no lab, or an older log)'}`,
            `           frame gaps ${gaps.mocap ? describeStreamGaps(gaps.mocap) : 'none (fewer than two frames)'}`,
            `robot:     state gaps ${gaps.robot ? describeStreamGaps(gaps.robot) : 'none (fewer than two states)'}`,
            'channels:',
            ...channels.map((c) => `  ${c.topic.padEnd(24)} ${String(c.messages).padStart(8)} messages`),
          ];
          process.stdout.write(`${lines.join('\n')}\n`);
        } finally {
          await session.close();
        }
      }),
    );
  log
    .command('export')
    .description(
      'write a tidy CSV table per channel: one row per message, named columns (log time first); lists get their own tables',
    )
    .argument('<file>', 'session log (.mcap)')
    .requiredOption('--out <dir>', 'output folder (created if missing)')
    .action((file: string, opts: { out: string }) =>
      userErrors(file, async () => {
        for (const c of await exportCsv(file, opts.out))
          process.stdout.write(`${c.file}: ${c.rows} rows, ${c.columns} columns (${c.topic})\n`);
      }),
    );
  log
    .command('recover')
    .description('rewrite a log cut short by a crash or kill as a valid indexed MCAP')
    .argument('<file>', 'session log (.mcap)')
    .action((file: string) =>
      userErrors(file, async () => {
        const r = await recoverSessionFile(file);
        switch (r.action) {
          case 'recovered':
            process.stdout.write(
              `${file}: recovered ${r.messages} messages (${r.summary.duration.toFixed(3)} s); ` +
                `${describeLoss(r.lost)}` +
                `${r.damagedCopy ? `; the original is kept as ${r.damagedCopy}` : ''}\n`,
            );
            break;
          case 'already-complete':
            process.stdout.write(`${file}: already a complete, indexed log; nothing to do\n`);
            break;
          case 'still-recording':
            throw new UsageError(`${file}: still being recorded by a running process; not touched`);
          case 'failed':
            throw new UsageError(`${file}: ${r.problem}`);
        }
      }),
    );
  log
    .command('serve')
    .description(
      'play a session log to Foxglove/Lichtblick over its WebSocket protocol on 127.0.0.1 (behind a per-launch token), once a viewer subscribes',
    )
    .argument('<file>', 'session log (.mcap)')
    .option('--foxglove [port]', 'port on 127.0.0.1 (default 8765; 0 picks a free one)')
    .option('--speed <x>', 'play speed (1: as recorded)', '1')
    .addOption(foxgloveOriginOption())
    .action((file: string, opts: LiveViewFlags & { speed: string }) =>
      userErrors(file, async () => {
        const { port, origins } = liveViewOptions(opts, true);
        const speed = Number(opts.speed);
        if (!(speed > 0)) throw new UsageError(`--speed: expected a number above 0, got "${opts.speed}"`);
        const session = await SessionLog.open(file);
        // Damage shows before a viewer connects, not partway through the playback.
        await session.verify().catch(async (err: unknown) => {
          await session.close();
          throw err;
        });
        const live = await startLive(port!, origins);
        const stop = new AbortController();
        const onSignal = () => stop.abort();
        process.once('SIGINT', onSignal);
        try {
          process.stdout.write(
            `serving ${file}\n${liveViewNotice(live.url)}\n` +
              'waiting for a viewer (Foxglove: Open connection, Foxglove WebSocket, this URL) ...\n',
          );
          await Promise.race([
            live.subscribed(),
            new Promise((r) => stop.signal.addEventListener('abort', r)),
          ]);
          // Give the viewer a moment to subscribe to the rest of the channels.
          await new Promise((r) => setTimeout(r, 500));
          const sent = await serveRecordedSession(session, live, { speed, signal: stop.signal });
          process.stdout.write(`played ${sent} messages\n`);
        } finally {
          process.off('SIGINT', onSignal);
          await session.close();
          await live.close();
        }
      }),
    );
}
