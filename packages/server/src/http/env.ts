import type { Context } from "hono";

export interface AppEnv {
  Variables: {
    /** Who is calling: the identity of their API key, or "anonymous" on an open server. */
    identity: string;
    /** When the request arrived (ISO), before its body was read. */
    receivedAt: string;
  };
}

export type Ctx = Context<AppEnv>;
