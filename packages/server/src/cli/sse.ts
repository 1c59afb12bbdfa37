/** Reads an SSE response body as { event, data } records (parsing by eventsource-parser). */
import { createParser, type EventSourceMessage } from "eventsource-parser";

export async function* sseEvents(response: Response): AsyncGenerator<{ event: string; data: any }> {
  if (!response.body) return;
  const parsed: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => parsed.push(message) });
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    for (const message of parsed.splice(0))
      yield { event: message.event ?? "message", data: message.data ? JSON.parse(message.data) : null };
  }
}
