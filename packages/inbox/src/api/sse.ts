/**
 * Server-Sent Events over chunks of text, parsed by eventsource-parser. `EventSource` cannot
 * send the `x-api-key` header, so the inbox reads the stream with `fetch`.
 */
import { createParser } from "eventsource-parser";

export interface SseMessage {
  event: string;
  data: string;
  id?: string;
}

/** Feed chunks in order; returns the messages each chunk completes. */
export function createSseParser(): (chunk: string) => SseMessage[] {
  let completed: SseMessage[] = [];
  const parser = createParser({
    onEvent: ({ event, data, id }) =>
      completed.push({ event: event || "message", data, ...(id !== undefined ? { id } : {}) }),
  });
  return (chunk) => {
    parser.feed(chunk);
    const out = completed;
    completed = [];
    return out;
  };
}
