/**
 * `GraphRunStream`: what `streamEvents(input, { version: "v3" })` returns. Iterated, it gives
 * the run's protocol events; its projections give the values (`values`, `output`), the AI
 * messages as they stream (`messages`), the subgraphs (`subgraphs`, each a stream of its own),
 * the lifecycle, the questions the run stopped at, and the user's transformers' projections
 * (`extensions`). The run is read once, into a log every projection reads from its own position.
 */
import { type StreamChannel, selectItems } from "./channel.js";
import { pump, REJECT_VALUES, RESOLVE_VALUES, type SettledStream, StreamMux } from "./mux.js";
import { createLifecycleTransformer, filterLifecycleEntries } from "./transformers/lifecycle.js";
import { createMessagesTransformer } from "./transformers/messages.js";
import { createSubgraphDiscoveryTransformer, filterSubgraphHandles } from "./transformers/subgraphs.js";
import { createValuesTransformer } from "./transformers/values.js";
import {
  type ChatModelStreamHandle,
  hasPrefix,
  type InterruptPayload,
  isNativeTransformer,
  type LifecycleEntry,
  type Namespace,
  type ProtocolEvent,
  type StreamTransformer,
} from "./types.js";

/** What the run stream's factory wires in after construction (kept off the public surface). */
interface Wiring {
  values?: StreamChannel<unknown>;
  messages?: AsyncIterable<ChatModelStreamHandle>;
  lifecycle?: AsyncIterable<LifecycleEntry>;
  subgraphs?: AsyncIterable<SubgraphRunStream>;
}
const WIRING = new WeakMap<GraphRunStream<any, any>, Wiring>();

const NOTHING: AsyncIterable<never> = {
  [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ value: undefined, done: true as const }) }),
};

export class GraphRunStream<
  TValues = Record<string, unknown>,
  TExtensions extends Record<string, unknown> = Record<string, unknown>,
> implements AsyncIterable<ProtocolEvent>, SettledStream
{
  readonly #eventStart: number;
  readonly #discoveryStart: number;
  readonly #abortController: AbortController;
  readonly #output: Promise<TValues>;
  #resolve?: (values: TValues) => void;
  #reject?: (error: unknown) => void;

  constructor(
    /** Where this stream is in the graph tree: `[]` for the run's root graph. */
    readonly path: Namespace,
    protected readonly _mux: StreamMux,
    discoveryStart = 0,
    eventStart = 0,
    /** The projections of the user's transformers, merged. */
    readonly extensions: TExtensions = {} as TExtensions,
    abortController?: AbortController,
  ) {
    this.#discoveryStart = discoveryStart;
    this.#eventStart = eventStart;
    this.#abortController = abortController ?? new AbortController();
    this.#output = new Promise<TValues>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Read or not, a failed run must not be an unhandled rejection.
    this.#output.catch(() => undefined);
  }

  /** The protocol events at or below this stream's namespace. */
  [Symbol.asyncIterator](): AsyncIterator<ProtocolEvent> {
    return this._mux.subscribeEvents(this.path, this.#eventStart);
  }

  /** A stream per direct subgraph, as each first streams something. */
  get subgraphs(): AsyncIterable<SubgraphRunStream> {
    return (
      WIRING.get(this)?.subgraphs ??
      filterSubgraphHandles(this._mux._discoveries as StreamChannel<any>, this.path, this.#discoveryStart)
    );
  }

  /** Each state this graph streams (iterated), or its last (awaited). */
  get values(): AsyncIterable<TValues> & PromiseLike<TValues> {
    const log = WIRING.get(this)?.values;
    const iterable = log ? (log.toAsyncIterable() as AsyncIterable<TValues>) : this.#ownValues();
    const output = this.#output;
    // Awaitable by design (LangGraph's shape): `await run.values` is the last state.
    // biome-ignore lint/suspicious/noThenProperty: a thenable on purpose
    return { [Symbol.asyncIterator]: () => iterable[Symbol.asyncIterator](), then: output.then.bind(output) };
  }

  #ownValues(): AsyncIterable<TValues> {
    const depth = this.path.length;
    const own = ({ method, params }: ProtocolEvent) => method === "values" && params.namespace.length === depth;
    const events = this._mux._events;
    const start = this.#eventStart;
    const path = this.path;
    return {
      [Symbol.asyncIterator]: () =>
        selectItems(
          events,
          start,
          (event) => own(event) && hasPrefix(event.params.namespace, path),
          (event) => event.params.data as TValues,
        ),
    };
  }

  /** The AI messages this graph's nodes make, each streaming (text, reasoning, tool calls, usage). */
  get messages(): AsyncIterable<ChatModelStreamHandle> {
    const wiring = WIRING.get(this) ?? {};
    if (!wiring.messages) {
      wiring.messages = this.#messagesOf(undefined);
      WIRING.set(this, wiring);
    }
    return wiring.messages;
  }

  /** The AI messages of one node. */
  messagesFrom(node: string): AsyncIterable<ChatModelStreamHandle> {
    return this.#messagesOf(node);
  }

  #messagesOf(node: string | undefined): AsyncIterable<ChatModelStreamHandle> {
    const transformer = createMessagesTransformer(this.path, node);
    const projection = transformer.init();
    this._mux.addTransformer(transformer);
    return projection.messages;
  }

  /** When this graph and its subgraphs start and end. */
  get lifecycle(): AsyncIterable<LifecycleEntry> {
    return WIRING.get(this)?.lifecycle ?? NOTHING;
  }

  /** The final state; rejects when the run fails. */
  get output(): Promise<TValues> {
    return this.#output;
  }

  /** Whether the run stopped for a human (a question, or a breakpoint). */
  get interrupted(): boolean {
    return this._mux.interrupted;
  }

  get interrupts(): readonly InterruptPayload[] {
    return this._mux.interrupts;
  }

  abort(reason?: unknown): void {
    this.#abortController.abort(reason);
  }

  get signal(): AbortSignal {
    return this.#abortController.signal;
  }

  [RESOLVE_VALUES](values: unknown): void {
    this.#resolve?.(values as TValues);
    this.#resolve = undefined;
  }

  [REJECT_VALUES](error: unknown): void {
    this.#reject?.(error);
    this.#reject = undefined;
  }
}

/** The stream of one subgraph of the run: `name` and `index` from its namespace segment (`name:index`). */
export class SubgraphRunStream<
  TValues = Record<string, unknown>,
  TExtensions extends Record<string, unknown> = Record<string, unknown>,
> extends GraphRunStream<TValues, TExtensions> {
  readonly name: string;
  readonly index: number;

  constructor(
    path: Namespace,
    mux: StreamMux,
    discoveryStart = 0,
    eventStart = 0,
    extensions?: TExtensions,
    abortController?: AbortController,
  ) {
    super(path, mux, discoveryStart, eventStart, extensions, abortController);
    const last = path[path.length - 1] ?? "";
    const colon = last.lastIndexOf(":");
    this.name = colon >= 0 ? last.slice(0, colon) : last;
    const suffix = colon >= 0 ? last.slice(colon + 1) : "";
    this.index = /^\d+$/.test(suffix) ? Number(suffix) : 0;
  }
}

export interface CreateGraphRunStreamOptions {
  /** Aborted by `run.abort()`; the caller wires it to the run. */
  abortController?: AbortController;
}

/**
 * A run stream over `source`, a stream of `[namespace, mode, payload]` chunks (a graph's
 * `stream()` with `subgraphs: true` and several modes), with the built-in projections and the
 * user's `transformers` (factories, each called once).
 */
export function createGraphRunStream<
  TValues = Record<string, unknown>,
  TExtensions extends Record<string, unknown> = Record<string, unknown>,
>(
  source: AsyncIterable<unknown>,
  transformers: ReadonlyArray<() => StreamTransformer<any>> = [],
  options: CreateGraphRunStreamOptions | AbortController = {},
): GraphRunStream<TValues, TExtensions> {
  const { abortController } = options instanceof AbortController ? { abortController: options } : options;
  const mux = new StreamMux();
  // A run that stopped for a human ends "interrupted" (LangGraph's own stream says "completed").
  const lifecycle = createLifecycleTransformer({
    getTerminalStatusOverride: () => (mux.interrupted ? "interrupted" : undefined),
  });
  const lifecycleProjection = lifecycle.init();
  const lifecycleLog = lifecycleProjection._lifecycleLog;
  const discovery = createSubgraphDiscoveryTransformer<SubgraphRunStream>(mux, {
    createStream(path, discoveryStart, eventStart) {
      const sub = new SubgraphRunStream(path, mux, discoveryStart, eventStart);
      WIRING.set(sub, {
        subgraphs: filterSubgraphHandles(mux._discoveries as StreamChannel<any>, path, discoveryStart),
        lifecycle: filterLifecycleEntries(lifecycleLog, path, lifecycleLog.size),
      });
      return sub;
    },
  });
  const discoveryProjection = discovery.init();
  mux.addTransformer(discovery);
  mux.addTransformer(lifecycle);
  const values = createValuesTransformer([]);
  const messages = createMessagesTransformer([]);
  mux.addTransformer(values);
  mux.addTransformer(messages);
  const extensions: Record<string, unknown> = {};
  const native: unknown[] = [];
  for (const factory of transformers) {
    const transformer = factory();
    mux.addTransformer(transformer);
    const projection = transformer.init();
    if (isNativeTransformer(transformer)) native.push(projection);
    else {
      Object.assign(extensions, projection);
      if (typeof projection === "object" && projection !== null)
        mux.wireChannels(projection as Record<string, unknown>);
    }
  }
  const root = new GraphRunStream<TValues, TExtensions>([], mux, 0, 0, extensions as TExtensions, abortController);
  for (const projection of native) Object.assign(root, projection);
  WIRING.set(root, {
    values: values.init()._valuesLog,
    messages: messages.init().messages,
    lifecycle: lifecycleProjection.lifecycle,
    subgraphs: discoveryProjection.subgraphs,
  });
  mux.register([], root);
  // A failed run is told through the projections and the events; the pump itself never rejects.
  void pump(source, mux);
  return root;
}
