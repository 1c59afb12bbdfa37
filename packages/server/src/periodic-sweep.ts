/**
 * A sweep every process runs on a timer (threads' TTLs, crons): one at a time, a failed one
 * logged and tried again at the next tick, and stopping once the sweep under way is done.
 */
export function startPeriodicSweep(
  what: string,
  everyMs: number,
  sweep: (stopped: () => boolean) => Promise<void>,
): () => Promise<void> {
  let sweeping: Promise<void> | undefined;
  let stopping = false;
  const timer = setInterval(() => {
    sweeping ??= sweep(() => stopping)
      .catch((error) => console.error(`[interlude] ${what} failed (tried again at the next):`, error))
      .finally(() => (sweeping = undefined));
  }, everyMs);
  timer.unref();
  return async () => {
    stopping = true;
    clearInterval(timer);
    await sweeping;
  };
}
