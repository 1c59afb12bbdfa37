/** Server-Sent Events: a run's log, followed live, in the SDK's framing (event, JSON data, id). */
import type { ServerContext } from "../context.js";
import type { RunEvent, RunLog } from "../runs/broker.js";
import { askToFollow } from "../runs/follow-request.js";
import { runEventsAfter } from "../store/run-events.js";
import { jsonBody } from "../wire/json-body.js";
import { wireJson } from "../wire/messages.js";
import type { Ctx } from "./env.js";
import { sseResponse } from "./sse-response.js";

export interface FollowOptions {
  lastEventId?: string;
  /** Only these event names (and their subgraph variants `name|ns`), plus metadata, error, end. */
  modes?: string[];
  onDisconnect?: () => void;
}

const ALWAYS = new Set(["metadata", "error", "end"]);

/** The stream modes whose events are named `name` (`messages` is the event of `messages-tuple`). */
function modesOf(name: string): string[] {
  if (name === "messages") return ["messages-tuple"];
  if (name.startsWith("messages/")) return ["messages"];
  return [name];
}

function wanted(event: string, modes: string[] | undefined): boolean {
  if (!modes?.length || ALWAYS.has(event)) return true;
  return modesOf(event.split("|")[0]!).some((mode) => modes.includes(mode));
}

/**
 * One event in SSE framing, as Hono's `writeSSE` frames it (event, one data line, id) without its
 * per-call work; `data` is JSON, so it has no line breaks of its own.
 */
export function sseText(event: string, data: string, id?: string): string {
  const [before, after] = sseFraming(event, id);
  return `${before}${data}${after}`;
}

/** What an event's SSE framing writes before its data and after it. */
function sseFraming(event: string, id: string | undefined): [string, string] {
  if (/[\r\n]/.test(event)) throw new Error(`SSE event name ${JSON.stringify(event)} has a line break.`);
  return [`event: ${event}\ndata: `, `\n${id === undefined ? "" : `id: ${id}\n`}\n`];
}

/**
 * A run's event; a token's event (`messages`, `messages|ns`) holds a message already in wire
 * shape. A large one (a `values` event of an agent's state) is framed as bytes, its JSON written
 * in parts (wire/json-body.ts).
 */
function frame(event: { event: string; data: unknown; id?: string }): Frame {
  if (event.event.startsWith("messages") && !event.event.startsWith("messages/"))
    return sseText(event.event, wireJson(event.data, true), event.id);
  const data = jsonBody(event.data);
  if (typeof data === "string") return sseText(event.event, data, event.id);
  const [before, after] = sseFraming(event.event, event.id);
  return Buffer.concat([Buffer.from(before), data, Buffer.from(after)]);
}

/** An event's SSE framing: text, or bytes for a large one. */
type Frame = string | Buffer;

/**
 * Text past which a write's frames are joined as bytes: joined as text, they would be flattened
 * into one string, which V8 allocates in pages of its own past 128 kB (wire/json-body.ts).
 */
const JOINED_TEXT_LIMIT = 64 * 1024;

/** Frames sent in one write (a burst of events, a stored log replayed): text while short, else bytes. */
function joinFrames(frames: readonly Frame[]): Frame {
  // One frame goes as it is: a large one's bytes are not copied again.
  if (frames.length === 1) return frames[0]!;
  let length = 0;
  let text = true;
  for (const frame of frames) {
    length += frame.length;
    if (typeof frame !== "string") text = false;
  }
  if (text && length <= JOINED_TEXT_LIMIT) return frames.join("");
  return Buffer.concat(frames.map((f) => (typeof f === "string" ? Buffer.from(f) : f)));
}

export interface SubscriptionOptions {
  /** Text sent first, before any event. */
  opening?: string;
  /** A comment line sent after this much silence, so proxies keep the connection open. */
  keepaliveMs?: number;
  onDisconnect?: () => void;
  /** Once the source ended (not the client): what to send last, if anything. */
  closing?: () => Promise<Frame>;
}

/**
 * The events a source pushes (`subscribe` returns how to stop it; `null` ends the stream), each
 * turned into SSE text by `text` (empty: not sent). Events that queued up while the socket was
 * busy go out in one write (one system call).
 */
export function sseFromEvents<T>(
  c: Ctx,
  subscribe: (push: (event: T | null) => void) => () => void,
  text: (event: T) => Frame,
  options: SubscriptionOptions = {},
): Response {
  return sseResponse(c, async (stream) => {
    const queue: Array<T | null> = [];
    let wake: (() => void) | undefined;
    const push = (event: T | null) => {
      queue.push(event);
      wake?.();
    };
    const stop = subscribe(push);
    let disconnected = false;
    const keepalive = options.keepaliveMs === undefined ? undefined : setInterval(() => wake?.(), options.keepaliveMs);
    stream.onAbort(() => {
      disconnected = true;
      push(null);
      options.onDisconnect?.();
    });
    try {
      if (options.opening) await stream.write(options.opening);
      for (;;) {
        if (!queue.length) {
          await new Promise<void>((resolve) => (wake = resolve));
          // Woken with nothing to send: the keep-alive's turn.
          if (!queue.length && keepalive) await stream.write(": keepalive\n\n");
          continue;
        }
        const out: Frame[] = [];
        let ended = false;
        for (const event of queue.splice(0)) {
          if (event === null) {
            ended = true;
            break;
          }
          const framed = text(event);
          if (framed.length) out.push(framed);
        }
        if (out.length) await stream.write(joinFrames(out));
        if (ended) break;
      }
      if (!disconnected && options.closing) {
        const last = await options.closing();
        if (last.length) await stream.write(last);
      }
    } finally {
      clearInterval(keepalive);
      stop();
    }
  });
}

/**
 * @param unfinished when the log closes without an `end` (the run went back to the queue, was
 *   drained by a shutdown, or goes on under another claim), the events that tell its outcome.
 */
export function sseFromLog(
  c: Ctx,
  log: RunLog,
  options: FollowOptions & { unfinished?: () => Promise<Array<{ event: string; data: unknown }>> } = {},
): Response {
  let ended = false;
  const { unfinished } = options;
  return sseFromEvents<RunEvent>(
    c,
    (push) => log.follow(push, options.lastEventId),
    (event) => {
      if (event.event === "end") ended = true;
      return wanted(event.event, options.modes) ? frame(event) : "";
    },
    {
      onDisconnect: options.onDisconnect,
      closing: unfinished && (async () => (ended ? "" : joinFrames((await unfinished()).map(frame)))),
    },
  );
}

/** Silence after which a finished run's follower stops waiting for stored events (its process died before storing the end). */
const QUIET_MS = 3_000;
/** How often a follower looks without being told (a missed notification). */
const LOOK_MS = 1_000;

/**
 * A run executed by another process, followed through its stored events (runs/event-relay.ts)
 * and woken by the bus. `ended()` gives the events to send when none were stored (the run
 * finished long ago, or its process died): its outcome, as `sseOf` sends it.
 */
export function sseFromStore(
  c: Ctx,
  ctx: Pick<ServerContext, "store" | "bus">,
  runId: string,
  options: FollowOptions & {
    finished: () => Promise<boolean>;
    ended: () => Promise<Array<{ event: string; data: unknown }>>;
    /**
     * The process that executes (or executed) the run for a client of its own, which stores its
     * events only once asked (runs/follow-request.ts); null for a background run, stored anyway.
     */
    owner: string | null;
  },
): Response {
  return sseResponse(c, async (stream) => {
    let after = options.lastEventId === undefined ? -1 : Number(options.lastEventId);
    if (!Number.isFinite(after)) after = -1;
    let wake: (() => void) | undefined;
    let told = false;
    const disconnected = new AbortController();
    // Watched before the first look, so that what is stored after it is heard of.
    const unwatch = await ctx.bus.watch();
    const unsubscribe = ctx.bus.subscribe((event) => {
      if ((event.type === "run.events" || event.type === "run.done") && event.run_id === runId) (told = true), wake?.();
    });
    stream.onAbort(() => {
      disconnected.abort();
      wake?.();
      options.onDisconnect?.();
    });
    try {
      let heard = Date.now();
      let sent = 0;
      let stored = options.owner === null;
      while (!disconnected.signal.aborted) {
        told = false;
        // Asked again at each look until the owner has them stored (it may not hold the run's log yet).
        if (!stored) stored = await askToFollow(ctx.bus, runId, options.owner!, disconnected.signal);
        const events = await runEventsAfter(ctx.store.db, runId, after);
        const out: Frame[] = [];
        let ended = false;
        for (const event of events) {
          after = event.seq;
          sent++;
          if (wanted(event.event, options.modes)) out.push(frame(event));
          if ((ended = event.event === "end")) break;
        }
        if (out.length) await stream.write(joinFrames(out));
        if (ended) return;
        if (events.length) heard = Date.now();
        else if ((sent === 0 || Date.now() - heard > QUIET_MS) && (await options.finished())) {
          // Ended with none (or no more) stored, though asked: its process no longer had them, or died.
          await stream.write(joinFrames((await options.ended()).map(frame)));
          return;
        }
        if (!told) await new Promise<void>((resolve) => ((wake = resolve), setTimeout(resolve, LOOK_MS)));
      }
    } finally {
      unsubscribe();
      unwatch();
    }
  });
}

/** A stream of a few fixed events (a run that executes in another process, followed from afar). */
export function sseOf(c: Ctx, events: Array<{ event: string; data: unknown }>): Response {
  return sseResponse(c, async (stream) => {
    await stream.write(joinFrames(events.map(frame)));
  });
}
