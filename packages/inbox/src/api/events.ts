/** Live inbox updates from `GET /inbox/events`, reconnecting with backoff until closed. */
import { createSseParser, type SseMessage } from "./sse";

export interface EventStreamOptions {
  url: string;
  apiKey?: string | null;
  onMessage: (message: { event: string; data: unknown }) => void;
  onStatus?: (status: "open" | "reconnecting") => void;
}

export function subscribeToEvents({ url, apiKey, onMessage, onStatus }: EventStreamOptions): () => void {
  const abort = new AbortController();
  let delay = 500;

  const deliver = (m: SseMessage) => {
    let data: unknown = m.data;
    try {
      data = JSON.parse(m.data);
    } catch {
      // keep raw text
    }
    onMessage({ event: m.event, data });
  };

  async function connectOnce(): Promise<void> {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (apiKey) headers["x-api-key"] = apiKey;
    const res = await fetch(url, { headers, signal: abort.signal });
    if (!res.ok || !res.body) throw new Error(`events: ${res.status}`);
    onStatus?.("open");
    delay = 500;
    const parse = createSseParser();
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      parse(value).forEach(deliver);
    }
  }

  (async () => {
    while (!abort.signal.aborted) {
      try {
        await connectOnce();
      } catch {
        // fall through to reconnect
      }
      if (abort.signal.aborted) return;
      onStatus?.("reconnecting");
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 10_000);
    }
  })();

  return () => abort.abort();
}
