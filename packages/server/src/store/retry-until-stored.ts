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
  untilStored(write).catch(() => undefined);
}

/** `retryUntilStored`, awaited: resolves once `write` succeeded; rejects with its last failure after 10 minutes. */
export async function untilStored(write: () => Promise<void>): Promise<void> {
  const until = Date.now() + RETRY_FOR_MS;
  for (let delay = RETRY_FIRST_MS; ; delay = Math.min(delay * 2, RETRY_MAX_MS)) {
    try {
      return await write();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/**
 * Runs `write` now, and when it fails, again until storage takes it (retryUntilStored), saying
 * so with `what`: for what must follow a change already committed, which a retry of the whole
 * would skip (it finds the change made) or make twice.
 */
export async function nowOrUntilStored(what: string, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    console.error(`[interlude] ${what} (retrying):`, error);
    retryUntilStored(write);
  }
}
