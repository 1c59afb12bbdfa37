/**
 * The event protocol of `streamEvents(input, { version: "v3" })`: every chunk a run streams
 * becomes one event `{ type: "event", seq, method, params: { namespace, timestamp, data } }`,
 * and transformers fold the events into projections (values, messages, subgraphs, lifecycle,
 * and the user's own). Declared here without LangChain's types so the root entry needs no peer.
 */

/** Where an event comes from: `[]` for the root graph, `["child:<task id>", ...]` below it. */
export type Namespace = string[];

/** A stream mode, `lifecycle`, `input`, or a transformer's own channel (`custom:<name>`). */
export type ProtocolMethod =
  | "values"
  | "updates"
  | "messages"
  | "tools"
  | "custom"
  | "tasks"
  | "checkpoints"
  | "debug"
  | "lifecycle"
  | "input"
  | (string & {});

export interface ProtocolEvent {
  readonly type: "event";
  readonly seq: number;
  readonly method: ProtocolMethod;
  readonly params: {
    readonly namespace: Namespace;
    readonly timestamp: number;
    /** The node that made the event (`messages`, `updates`). */
    readonly node?: string;
    readonly data: unknown;
  };
}

/** Lets a transformer add events of its own to the run's stream. */
export interface StreamEmitter {
  push(ns: Namespace, event: ProtocolEvent): void;
}

/**
 * Folds a run's events into a projection (`init()`'s value, merged into `run.extensions`).
 * `process` returning false keeps the event out of the run's own event stream.
 */
export interface StreamTransformer<TProjection = unknown> {
  init(): TProjection;
  onRegister?(emitter: StreamEmitter): void;
  process(event: ProtocolEvent): boolean;
  finalize?(): void | PromiseLike<void>;
  fail?(err: unknown): void;
}

/** A transformer whose projection is assigned onto the run stream itself, not its `extensions`. */
export interface NativeStreamTransformer<TProjection = unknown> extends StreamTransformer<TProjection> {
  readonly __native: true;
}

export function isNativeTransformer(t: StreamTransformer<unknown>): t is NativeStreamTransformer {
  return (t as Partial<NativeStreamTransformer>).__native === true;
}

/** The projections of the transformers in `T`, merged (`run.extensions`). */
export type InferExtensions<T extends ReadonlyArray<() => StreamTransformer<any>>> = T extends readonly []
  ? Record<string, never>
  : T extends readonly [
        () => StreamTransformer<infer P>,
        ...infer Rest extends ReadonlyArray<() => StreamTransformer<any>>,
      ]
    ? P & InferExtensions<Rest>
    : Record<string, unknown>;

/** A question a run stopped at. */
export interface InterruptPayload<TPayload = unknown> {
  interruptId: string;
  payload: TPayload;
}

export type LifecycleStatus = "running" | "started" | "completed" | "interrupted" | "failed" | (string & {});

/** One entry of `run.lifecycle`: a graph or subgraph started, or ended how. */
export interface LifecycleEntry {
  namespace: Namespace;
  timestamp: number;
  event: LifecycleStatus;
  graph_name: string;
  cause?: { type: string; [key: string]: unknown };
  error?: string;
}

/**
 * One AI message as it streams (`run.messages`): LangChain's `ChatModelStream` (`.text`,
 * `.reasoning`, `.toolCalls`, `.usage`, awaitable for the message), with its node and namespace.
 */
export interface ChatModelStreamHandle extends AsyncIterable<unknown> {
  readonly node: string | undefined;
  readonly namespace: Namespace;
  readonly text: AsyncIterable<string> & PromiseLike<string>;
  readonly reasoning: AsyncIterable<string> & PromiseLike<string>;
  readonly toolCalls: AsyncIterable<unknown> & PromiseLike<unknown[]>;
  readonly usage: AsyncIterable<unknown> & PromiseLike<unknown>;
  readonly output: PromiseLike<unknown>;
}

export function nsKey(ns: readonly string[]): string {
  return ns.join("\0");
}

export function hasPrefix(ns: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length > ns.length) return false;
  for (let i = 0; i < prefix.length; i++) if (ns[i] !== prefix[i]) return false;
  return true;
}
