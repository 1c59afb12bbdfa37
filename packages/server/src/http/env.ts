import type { Context } from "hono";

export interface AppEnv {
  Variables: {
    /** Who is calling: the identity of their API key, or "anonymous" on an open server. */
    identity: string;
    /** When the request arrived (ISO), before its body was read. */
    receivedAt: string;
    /**
     * The response's Content-Location (a run's URL), set by the route and sent by the JSON and
     * SSE writers: Hono's `c.header` builds a WHATWG Headers (undici's) that @hono/node-server
     * then turns back into a plain record, on every request that sets one.
     */
    contentLocation?: string;
    /**
     * The response's Location on a run's event stream: where the SDK reconnects (GET, with
     * Last-Event-ID) when the stream is cut before the run ends. Sent by the SSE writer.
     */
    streamLocation?: string;
  };
}

export type Ctx = Context<AppEnv>;
