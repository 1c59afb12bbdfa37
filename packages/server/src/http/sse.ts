/** Server-Sent Events: a run's log, followed live, in the SDK's framing (event, JSON data, id). */
import { streamSSE } from "hono/streaming";
import type { RunEvent, RunLog } from "../runs/broker.js";
import type { Ctx } from "./env.js";

export interface FollowOptions {
  lastEventId?: string;
  /** Only these event names (and their subgraph variants `name|ns`), plus metadata, error, end. */
  modes?: string[];
  onDisconnect?: () => void;
}

const ALWAYS = new Set(["metadata", "error", "end"]);

function wanted(event: string, modes: string[] | undefined): boolean {
  if (!modes?.length || ALWAYS.has(event)) return true;
  return modes.includes(event.split("|")[0]!);
}

export function sseFromLog(c: Ctx, log: RunLog, options: FollowOptions = {}): Response {
  return streamSSE(c, async (stream) => {
    const queue: Array<RunEvent | null> = [];
    let wake: (() => void) | undefined;
    const push = (event: RunEvent | null) => {
      queue.push(event);
      wake?.();
    };
    const stop = log.follow(push, options.lastEventId);
    stream.onAbort(() => {
      push(null);
      options.onDisconnect?.();
    });
    try {
      for (;;) {
        while (!queue.length) await new Promise<void>((resolve) => (wake = resolve));
        const event = queue.shift()!;
        if (event === null) break;
        if (wanted(event.event, options.modes)) await stream.writeSSE({ event: event.event, data: JSON.stringify(event.data), id: event.id });
      }
    } finally {
      stop();
    }
  });
}

/** A stream of a few fixed events (a run that executes in another process, followed from afar). */
export function sseOf(c: Ctx, events: Array<{ event: string; data: unknown }>): Response {
  return streamSSE(c, async (stream) => {
    for (const e of events) await stream.writeSSE({ event: e.event, data: JSON.stringify(e.data) });
  });
}
