/**
 * The hub of a v3 run stream: every event passes each transformer (which may keep it out),
 * then goes into one log that the run stream and its subgraph streams read, each from its own
 * position. It also remembers what the run stopped at, and each namespace's last values.
 */
import { INTERRUPT } from "../constants.js";
import { StreamChannel, selectItems } from "./channel.js";
import { convertToProtocolEvent } from "./convert.js";
import {
  hasPrefix,
  type InterruptPayload,
  type Namespace,
  nsKey,
  type ProtocolEvent,
  type StreamTransformer,
} from "./types.js";

export const RESOLVE_VALUES = Symbol("resolveValues");
export const REJECT_VALUES = Symbol("rejectValues");

/** What the mux settles on each stream it knows (the stream's `output` and `values`). */
export interface SettledStream {
  [RESOLVE_VALUES](values: unknown): void;
  [REJECT_VALUES](error: unknown): void;
}

/** A subgraph stream, as the discovery log holds it. */
export interface Discovery<S = unknown> {
  ns: Namespace;
  stream: S;
}

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> =>
  value !== null &&
  (typeof value === "object" || typeof value === "function") &&
  typeof (value as { then?: unknown }).then === "function";

export class StreamMux {
  readonly _events = StreamChannel.local<ProtocolEvent>();
  readonly _discoveries = StreamChannel.local<Discovery>();
  #seq = 0;
  #closed = false;
  #failed = false;
  #error: unknown;
  #interrupted = false;
  readonly #interrupts: InterruptPayload[] = [];
  /** The namespace of the event being processed: where a transformer's channel items are told. */
  #namespace: Namespace = [];
  readonly #transformers: StreamTransformer[] = [];
  readonly #channels: StreamChannel[] = [];
  readonly #streams = new Map<string, SettledStream>();
  readonly #latestValues = new Map<string, unknown>();
  /** Promises in transformers' projections: their values are told as `custom` events at the end. */
  readonly #finalValues: Array<{ name: string; promise: Promise<unknown> }> = [];

  register(path: Namespace, stream: SettledStream): void {
    this.#streams.set(nsKey(path), stream);
  }

  /** Adds a transformer, which first sees every event so far (and the end, if the run is over). */
  addTransformer(transformer: StreamTransformer): void {
    const seen = this._events.size;
    this.#transformers.push(transformer);
    transformer.onRegister?.({ push: (ns, event) => this.push(ns, event) });
    for (let i = 0; i < seen; i++) transformer.process(this._events.get(i));
    if (!this.#closed) return;
    if (this.#failed) transformer.fail?.(this.#error);
    else transformer.finalize?.();
  }

  /** Wires a user projection: named channels send into the run's events, promises are told at the end. */
  wireChannels(projection: Record<string, unknown>): void {
    for (const [key, value] of Object.entries(projection)) {
      if (StreamChannel.isInstance(value)) {
        this.#channels.push(value);
        if (typeof value.channelName !== "string") continue;
        const method = `custom:${value.channelName}`;
        value._wire((data) => this.#append(method, this.#namespace, data));
      } else if (isPromiseLike(value)) {
        this.#finalValues.push({ name: key, promise: Promise.resolve(value) });
      }
    }
  }

  #append(method: string, namespace: Namespace, data: unknown): void {
    this._events.push({ type: "event", seq: this.#seq++, method, params: { namespace, timestamp: Date.now(), data } });
  }

  push(ns: Namespace, event: ProtocolEvent): void {
    if (event.method === "values") this.#latestValues.set(nsKey(ns), event.params.data);
    const outer = this.#namespace;
    this.#namespace = ns;
    let keep = true;
    for (const transformer of this.#transformers) if (!transformer.process(event)) keep = false;
    this.#namespace = outer;
    if (keep) this._events.push({ ...event, seq: this.#seq++ });
  }

  close(): void {
    this.#closed = true;
    for (const [key, values] of this.#latestValues) this.#streams.get(key)?.[RESOLVE_VALUES](values);
    const finalizing: PromiseLike<void>[] = [];
    for (const transformer of this.#transformers) {
      const result = transformer.finalize?.();
      if (isPromiseLike(result)) finalizing.push(result);
    }
    for (const channel of this.#channels) channel._close();
    const ended = () => {
      this._events.close();
      this._discoveries.close();
    };
    if (finalizing.length === 0 && this.#finalValues.length === 0) ended();
    else {
      const told = this.#finalValues.map(async ({ name, promise }) => {
        try {
          const payload = await promise;
          if (!this._events.done) this.#append("custom", [], { name, payload });
        } catch {
          // A projection's promise that fails tells nothing; its transformer reports its own errors.
        }
      });
      Promise.allSettled([...finalizing, ...told]).then(ended);
    }
    // Streams with no values of their own settle on undefined (a settled promise ignores this).
    for (const stream of this.#streams.values()) stream[RESOLVE_VALUES](undefined);
  }

  fail(error: unknown): void {
    this.#closed = true;
    this.#failed = true;
    this.#error = error;
    for (const transformer of this.#transformers) transformer.fail?.(error);
    for (const channel of this.#channels) channel._fail(error);
    this._events.fail(error);
    this._discoveries.fail(error);
    for (const stream of this.#streams.values()) stream[REJECT_VALUES](error);
  }

  /** The run stopped (at a question, or at a breakpoint with none). */
  markInterrupted(interrupts: readonly InterruptPayload[]): void {
    this.#interrupted = true;
    this.#interrupts.push(...interrupts);
  }

  get interrupted(): boolean {
    return this.#interrupted;
  }

  get interrupts(): readonly InterruptPayload[] {
    return this.#interrupts;
  }

  /** The events at or below `path`, from position `startAt`. */
  subscribeEvents(path: Namespace, startAt = 0): AsyncIterator<ProtocolEvent> {
    return selectItems(this._events, startAt, (event) => hasPrefix(event.params.namespace, path));
  }
}

/** Feeds a stream of `[namespace, mode, payload]` chunks into `mux`, then ends it. */
export async function pump(source: AsyncIterable<unknown>, mux: StreamMux): Promise<void> {
  let seq = 0;
  try {
    for await (const chunk of source) {
      const [ns, mode, payload] = chunk as [Namespace, string, unknown];
      if (mode === "values" && payload !== null && typeof payload === "object" && INTERRUPT in payload) {
        const interrupts = (payload as Record<string, Array<{ id?: string; value?: unknown }>>)[INTERRUPT]!;
        mux.markInterrupted(interrupts.map((i) => ({ interruptId: i.id ?? "", payload: i.value })));
      }
      const events = convertToProtocolEvent({ namespace: ns, mode, payload, seq });
      seq += events.length;
      for (const event of events) mux.push(ns, event);
    }
  } catch (error) {
    mux.fail(error);
    return;
  }
  mux.close();
}
