/**
 * Each thread's event stream in the thread-centric protocol: the protocol events of the thread's
 * latest run, numbered (`seq`, also the SSE id) across the thread's runs, replayed to each
 * client that opens the stream (from `since`) and then delivered live, filtered by channel.
 * Kept in this process's memory, like a run's log (runs/broker.ts): a run executing in another
 * process is not relayed here.
 */
import type { RunEvent, RunLog } from "../runs/broker.js";
import { toWire } from "../wire/messages.js";
import { type ProtocolEventBody, ProtocolTranslator, strictResumeRefusal } from "./translate.js";

export interface ProtocolEvent {
  type: "event";
  event_id: string;
  seq: number;
  method: ProtocolEventBody["method"];
  params: { namespace: string[]; timestamp: number; node?: string; data: unknown };
}

export interface StreamFilter {
  channels: string[];
  /** Only events after this `seq`. */
  since?: number;
}

type Sink = (event: ProtocolEvent) => void;

/** How long a finished run's events stay for a client that reconnects, when nobody listens. */
const KEEP_MS = 10 * 60_000;

/** The channel a subscriber names for an event's method (`input` for `input.requested` and `input.answered`). */
const channelOf = (method: ProtocolEventBody["method"]) => (method.startsWith("input.") ? "input" : method);

function matches(filter: StreamFilter, event: ProtocolEvent): boolean {
  if (filter.since !== undefined && event.seq <= filter.since) return false;
  return filter.channels.includes(channelOf(event.method));
}

class ThreadStream {
  seq = 0;
  events: ProtocolEvent[] = [];
  readonly sinks = new Set<{ filter: StreamFilter; send: Sink }>();
  runId: string | undefined;
  stopFollowing: (() => void) | undefined;

  emit(body: ProtocolEventBody): void {
    this.seq += 1;
    const event: ProtocolEvent = {
      type: "event",
      event_id: String(this.seq),
      seq: this.seq,
      method: body.method,
      params: { namespace: [], timestamp: Date.now(), ...(body.node ? { node: body.node } : {}), data: body.data },
    };
    this.events.push(event);
    for (const sink of this.sinks) if (matches(sink.filter, event)) sink.send(event);
  }
}

export class ThreadStreams {
  private readonly threads = new Map<string, ThreadStream>();

  private of(threadId: string): ThreadStream {
    let stream = this.threads.get(threadId);
    if (!stream) this.threads.set(threadId, (stream = new ThreadStream()));
    return stream;
  }

  /** Whether the thread's events are relayed here (a run was started or joined through the protocol). */
  has(threadId: string): boolean {
    return this.threads.has(threadId);
  }

  /**
   * Relays a run's log as the thread's events from now on (the previous run's events are
   * dropped). `answered`: the interrupts the run answers by id, told at once (`input.answered`)
   * so every client on the thread stops offering them, before the answers are checked.
   */
  follow(threadId: string, runId: string, log: RunLog, graphName: string, answered: readonly string[] = []): void {
    const stream = this.of(threadId);
    stream.stopFollowing?.();
    stream.events = [];
    stream.runId = runId;
    const translator = new ProtocolTranslator();
    for (const body of translator.start(graphName)) stream.emit(body);
    if (answered.length) stream.emit({ method: "input.answered", data: { interrupt_ids: [...answered] } });
    stream.stopFollowing = log.follow((entry: RunEvent | null) => {
      if (stream.runId !== runId) return;
      const bodies =
        entry === null
          ? translator.finish(graphName)
          : entry.event === "error"
            ? [
                ...translator.translate("error", null),
                ...translator.finish(graphName, errorText(entry.data), strictResumeRefusal(entry.data, answered)),
              ]
            : translator.translate(entry.event, toWire(entry.data));
      for (const body of bodies) stream.emit(body);
      if (entry === null) this.forgetLater(threadId, stream, runId);
    });
  }

  private forgetLater(threadId: string, stream: ThreadStream, runId: string): void {
    setTimeout(() => {
      if (stream.runId === runId && !stream.sinks.size && this.threads.get(threadId) === stream)
        this.threads.delete(threadId);
    }, KEEP_MS).unref();
  }

  /** Replays the thread's events that pass `filter`, then delivers new ones until the returned function is called. */
  subscribe(threadId: string, filter: StreamFilter, send: Sink): () => void {
    const stream = this.of(threadId);
    for (const event of stream.events) if (matches(filter, event)) send(event);
    const sink = { filter, send };
    stream.sinks.add(sink);
    return () => {
      stream.sinks.delete(sink);
      // A thread nobody started a run on is not kept for nothing (any id may be asked for).
      if (!stream.sinks.size && stream.runId === undefined && this.threads.get(threadId) === stream)
        this.threads.delete(threadId);
    };
  }
}

function errorText(data: unknown): string {
  if (typeof data === "string") return data;
  const message = (data as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : JSON.stringify(data);
}
