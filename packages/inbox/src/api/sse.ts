/**
 * A Server-Sent Events parser over chunks of text. `EventSource` cannot send the `x-api-key`
 * header, so the inbox reads the stream with `fetch` and parses it here.
 */
export interface SseMessage {
  event: string;
  data: string;
  id?: string;
}

/** Feed chunks in order; returns the messages each chunk completes. */
export function createSseParser(): (chunk: string) => SseMessage[] {
  let buffer = "";
  let event = "";
  let data: string[] = [];
  let id: string | undefined;
  return (chunk) => {
    buffer += chunk;
    const out: SseMessage[] = [];
    let end: number;
    while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
      if (line === "") {
        if (data.length) out.push({ event: event || "message", data: data.join("\n"), ...(id !== undefined ? { id } : {}) });
        event = "";
        data = [];
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
      else if (field === "id") id = value;
    }
    return out;
  };
}
