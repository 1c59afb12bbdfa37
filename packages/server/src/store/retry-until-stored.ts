/** Writes that must land once storage is back: a failed run's record, a requeue, a thread's deletion, a job's settlement. */

/** First retry after 100 ms, doubling up to 5 s, for at most 10 minutes. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;
const RETRY_FOR_MS = 10 * 60_000;

/**
 * Runs `write` until it succeeds (storage is back), with backoff, for at most 10 minutes; what is
 * still undone after that is left to the sweeps (a run's lease, a job's expiry in pg-boss).
 */
export function retryUntilStored(write: () => Promise<void>): void {
  const until = Date.now() + RETRY_FOR_MS;
  const attempt = async (delay: number): Promise<void> => {
    try {
      await write();
    } catch {
      if (Date.now() > until) return;
      setTimeout(() => void attempt(Math.min(delay * 2, RETRY_MAX_MS)), delay).unref();
    }
  };
  void attempt(RETRY_FIRST_MS);
}
