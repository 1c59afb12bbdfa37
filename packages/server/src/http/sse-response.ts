/**
 * The response that carries a Server-Sent Events stream. Served by Node (`@hono/node-server`),
 * the text goes straight to Node's response: Hono's `streamSSE` passes each write through a
 * TransformStream, a second ReadableStream and the adapter's reader (a TextEncoder copy and
 * half a dozen promises per write), which for a streamed token cost more CPU than the token's
 * JSON. Anywhere else (`app.request()`, `app.fetch()` in process, another runtime) it is
 * Hono's `streamSSE`, whose framing the callers do themselves either way.
 */
import { ServerResponse } from "node:http";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { streamSSE } from "hono/streaming";
import type { Ctx } from "./env.js";

export interface EventSink {
  /** Sends SSE-framed text (or its bytes); resolves when the socket can take more. */
  write(text: string | Uint8Array): Promise<void>;
  /** Called once if the client goes away before the stream ends. */
  onAbort(listener: () => void): void;
}

const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
  Connection: "keep-alive",
} as const;

/** `c.env.outgoing` when Node's HTTP/1 server serves the request, else undefined. */
function nodeResponse(c: Ctx): ServerResponse | undefined {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  return outgoing instanceof ServerResponse ? outgoing : undefined;
}

export function sseResponse(c: Ctx, body: (sink: EventSink) => Promise<void>): Response {
  const location = c.get("contentLocation");
  if (location !== undefined) c.header("Content-Location", location);
  const reconnect = c.get("streamLocation");
  if (reconnect !== undefined) c.header("Location", reconnect);
  const outgoing = nodeResponse(c);
  if (!outgoing)
    return streamSSE(c, (stream) =>
      body({
        write: async (text) => void (await stream.write(text)),
        onAbort: (listener) => stream.onAbort(listener),
      }),
    );
  // The headers a route set on the context (e.g. Content-Location) go out with the stream's own.
  for (const [name, value] of Object.entries(SSE_HEADERS)) c.header(name, value);
  const headers = c.newResponse(null).headers;
  const head: Record<string, string | string[]> = Object.fromEntries(headers);
  const cookies = headers.getSetCookie();
  if (cookies.length) head["set-cookie"] = cookies;
  outgoing.writeHead(200, head);
  let ended = false;
  let wrote = false;
  const closed = new Promise<void>((resolve) => outgoing.once("close", resolve));
  const sink: EventSink = {
    write(text) {
      if (outgoing.destroyed || outgoing.writableEnded) return Promise.resolve();
      wrote = true;
      if (outgoing.write(text)) return Promise.resolve();
      // The socket's buffer is full: wait until it drains (or the client is gone).
      return Promise.race([new Promise<void>((resolve) => outgoing.once("drain", resolve)), closed]);
    },
    onAbort(listener) {
      void closed.then(() => {
        if (!ended) listener();
      });
    },
  };
  void body(sink)
    .catch((error: unknown) => console.error(error))
    .finally(() => {
      ended = true;
      if (!outgoing.writableEnded) outgoing.end();
    });
  // The client learns the stream started (and its headers) at once; when the stream had events
  // to send straight away, they went with the headers, one write instead of two.
  if (!wrote && !outgoing.writableEnded) outgoing.flushHeaders();
  return RESPONSE_ALREADY_SENT;
}
