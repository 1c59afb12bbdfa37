/**
 * `graph.streamEvents(input, { version: "v2" })`: LangChain's own event stream, fed by the
 * graph's chain runs (graph, nodes) and whatever runs inside them (chat models, tools). The
 * graph is wrapped in a LangChain `Runnable` whose `stream()` is the graph's, so the events are
 * produced by the user's `@langchain/core` exactly as for any runnable.
 */
import { RunCancelledError, UnsupportedEventsVersionError } from "../errors/graph.js";
import { type LangChain, loadTypedLangChain } from "../langchain/typed.js";
import { forwardAbort } from "../run/abandon.js";

/** One event of `streamEvents` v2, as LangChain shapes it (declared here so the core's types need no peer). */
export interface StreamEvent {
  event: string;
  name: string;
  run_id: string;
  tags?: string[];
  metadata: Record<string, any>;
  data: { input?: any; output?: any; chunk?: any; error?: any };
  parent_ids?: string[];
}

/** Which runs' events to keep, by name, run type or tag (LangChain's `streamEvents` options). */
export interface EventFilters {
  includeNames?: string[];
  includeTypes?: string[];
  includeTags?: string[];
  excludeNames?: string[];
  excludeTypes?: string[];
  excludeTags?: string[];
}

export interface StreamableGraph {
  getName(): string;
  invoke(input: unknown, config?: any): Promise<unknown>;
  stream(input: unknown, config?: any): Promise<AsyncIterableIterator<unknown>>;
}

type Adapter = {
  streamEvents(input: unknown, options: any, filters?: EventFilters): AsyncIterable<StreamEvent>;
  streamLog(input: unknown, options?: any, filters?: EventFilters): AsyncIterable<unknown>;
};
let adapterClass: ((graph: StreamableGraph) => Adapter) | undefined;

function adapterFor(lc: LangChain) {
  class GraphRunnable extends lc.Runnable {
    lc_namespace = ["langgraph"];
    constructor(private readonly graph: StreamableGraph) {
      super();
    }
    override getName(): string {
      return this.graph.getName();
    }
    override invoke(input: unknown, config?: any): Promise<unknown> {
      return this.graph.invoke(input, config);
    }
    override async stream(input: unknown, config?: any): Promise<any> {
      return asLangChainStops(await this.graph.stream(input, config), config?.signal);
    }
  }
  return (graph: StreamableGraph) => new GraphRunnable(graph);
}

/** The reason a run is cancelled with when the reader of its event stream leaves. */
class ReaderLeft extends Error {
  constructor() {
    super("The event stream's reader stopped reading.");
  }
}

/**
 * The graph's chunks, a cancellation by `signal` thrown as its reason: LangChain aborts the
 * signal it gives when the event stream's reader leaves, and ends quietly only on that reason.
 * Cancelled because the reader left (streamGraphEvents), the chunks simply end.
 */
async function* asLangChainStops(chunks: AsyncIterable<unknown>, signal: AbortSignal | undefined) {
  try {
    yield* chunks;
  } catch (error) {
    if (signal?.aborted && error instanceof RunCancelledError) {
      if (signal.reason instanceof ReaderLeft) return;
      throw signal.reason;
    }
    throw error;
  }
}

/**
 * `streamEvents(input, { version: "v2" })`. A reader that leaves (`break`, `return()`) cancels
 * the run first: LangChain's event stream reads ahead, and its own cancellation waits for the
 * event being read, which may come only when the running node ends (a whole model call).
 */
export function streamGraphEvents(
  graph: StreamableGraph,
  input: unknown,
  options: { version?: string; signal?: AbortSignal },
  filters?: EventFilters,
): AsyncGenerator<StreamEvent> {
  const left = new AbortController();
  const release = forwardAbort(options?.signal, left);
  const events = langChainEvents(graph, input, { ...options, signal: left.signal }, filters, release);
  const leave = events.return.bind(events);
  events.return = (value) => {
    left.abort(new ReaderLeft());
    return leave(value);
  };
  return events;
}

async function* langChainEvents(
  graph: StreamableGraph,
  input: unknown,
  options: { version?: string; signal: AbortSignal },
  filters: EventFilters | undefined,
  release: () => void,
): AsyncGenerator<StreamEvent> {
  try {
    if (options.version !== "v2") throw new UnsupportedEventsVersionError(options.version);
    const lc = await loadTypedLangChain("streamEvents()");
    adapterClass ??= adapterFor(lc);
    yield* adapterClass(graph).streamEvents(input, { ...options, version: "v2" }, filters);
  } finally {
    release();
  }
}

/**
 * `graph.streamLog(input)`: LangChain's run log of the graph (JSON patches of its runs and their
 * outputs), as for any runnable. Needs `@langchain/core`.
 */
export async function* streamGraphLog(
  graph: StreamableGraph,
  input: unknown,
  options?: unknown,
  filters?: EventFilters,
): AsyncGenerator<unknown> {
  const lc = await loadTypedLangChain("streamLog()");
  adapterClass ??= adapterFor(lc);
  yield* adapterClass(graph).streamLog(input, options, filters);
}
