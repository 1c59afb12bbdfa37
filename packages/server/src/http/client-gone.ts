/**
 * A client going away before its answer: the request's AbortSignal, which @hono/node-server
 * aborts when the connection closes with the response unfinished (a long `join` whose caller
 * gave up). Streams learn it from their sink instead (sse-response.ts).
 */
import type { Ctx } from "./env.js";

/** Calls `listener` if the client leaves; returns how to stop watching (once the answer is ready). */
export function onClientGone(c: Ctx, listener: () => void): () => void {
  const signal = c.req.raw.signal;
  if (signal.aborted) {
    listener();
    return () => {};
  }
  signal.addEventListener("abort", listener, { once: true });
  return () => signal.removeEventListener("abort", listener);
}
