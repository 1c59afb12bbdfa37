/**
 * A cancelled run stops waiting for its step: nodes get the run's AbortSignal, and one that
 * ignores it is abandoned after a grace period. Whatever it returns later is dropped (the loop
 * saves nothing of a step that was running when the run was cancelled).
 */
import { RunCancelledError } from "../errors/graph.js";

/** Settles as `work` does, or rejects with RunCancelledError `graceMs` after `signal` aborts. */
export function abandonOnAbort<T>(work: Promise<T>, signal: AbortSignal, graceMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const abandon = () => {
      timer = setTimeout(() => reject(new RunCancelledError(signal.reason)), graceMs);
    };
    if (signal.aborted) abandon();
    else signal.addEventListener("abort", abandon, { once: true });
    // Two callbacks rather than then().finally(): every promise a run makes costs its async hooks.
    const settled = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", abandon);
    };
    work.then(
      (value) => {
        settled();
        resolve(value);
      },
      (error: unknown) => {
        settled();
        reject(error);
      },
    );
  });
}

/**
 * Aborts `to` when `from` aborts (now, if it has), and returns what stops that: AbortSignal.any
 * would do the same at ~20 µs a call, where a listener costs well under one.
 */
export function forwardAbort(from: AbortSignal | undefined, to: AbortController): () => void {
  if (!from) return () => undefined;
  const forward = () => to.abort(from.reason);
  if (from.aborted) forward();
  else from.addEventListener("abort", forward, { once: true });
  return () => from.removeEventListener("abort", forward);
}
