/**
 * How a long-running command (lab, web, mocap serve and listen, a served replay) stays up: it
 * awaits `done`, which Ctrl+C (SIGINT) or SIGTERM resolves, cleans up, and returns; the CLI then
 * ends the process (main.ts). `signal` aborts at the same moment, for work that takes one.
 */
export function untilStopped(): { signal: AbortSignal; done: Promise<void> } {
  const controller = new AbortController();
  const done = new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      controller.abort();
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return { signal: controller.signal, done };
}
