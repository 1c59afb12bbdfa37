/**
 * A v3 run's events as server-sent events: `event: <method>` (`<method>|<namespace>` below the
 * root graph) and the event's data as JSON. A failure is the last event (`event: error`).
 */
import type { ProtocolEvent } from "./types.js";

export async function* protocolEventFrames(
  events: AsyncIterable<ProtocolEvent>,
  /** Told when the reader stops before the end. */
  onCancel: () => void,
): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  let ended = false;
  try {
    for await (const { method, params } of events) {
      const name = params.namespace.length ? `${method}|${params.namespace.join("|")}` : method;
      yield encoder.encode(`event: ${name}\ndata: ${JSON.stringify(params.data ?? {})}\n\n`);
    }
    ended = true;
  } catch (error) {
    ended = true;
    yield encoder.encode(`event: error\ndata: ${JSON.stringify({ message: String(error) })}\n\n`);
  } finally {
    if (!ended) onCancel();
  }
}
