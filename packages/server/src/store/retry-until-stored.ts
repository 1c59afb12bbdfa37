/** Writes that must land once storage is back: a failed run's record, a requeue, a thread's deletion, a job's settlement. */

/** First retry after 100 ms, doubling up to 5 s, for at most 10 minutes (then the lease sweep takes over). */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;
const RETRY_FOR_MS = 10 * 60_000;

/**
 * Runs `write` until it succeeds (storage is back), with backoff, for at most 10 minutes; a
 * restart's lease sweep covers what is still undone after that.
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
