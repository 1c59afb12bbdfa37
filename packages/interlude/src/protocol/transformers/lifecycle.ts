/**
 * `run.lifecycle` and the `lifecycle` events: when the run and each subgraph start, and how
 * they end. A subgraph is `started` at its first event and `completed` once its parent reports
 * the node (or task) that ran it; at the end of the run every graph still running takes the
 * run's own end: `completed`, `interrupted` (questions asked), or `failed` with the error.
 */
import { StreamChannel, selectItems } from "../channel.js";
import {
  hasPrefix,
  type LifecycleEntry,
  type LifecycleStatus,
  type Namespace,
  type NativeStreamTransformer,
  nsKey,
  type StreamEmitter,
} from "../types.js";

type Cause = NonNullable<LifecycleEntry["cause"]>;

export interface LifecycleTransformerOptions {
  /** The root graph's name in the entries ("root"). */
  rootGraphName?: string;
  /** The root's first status ("running"). */
  initialStatus?: LifecycleStatus;
  /** Whether the root's first status is sent as an event too (entries always have it). */
  emitRootOnRegister?: boolean;
  /** A subgraph's name from its namespace (its last segment, less the task id). */
  getGraphName?: (ns: Namespace) => string;
  serializeError?: (error: unknown) => string;
  /** The run's end status, when something else knows it better (undefined: the default). */
  getTerminalStatusOverride?: () => LifecycleStatus | undefined | Promise<LifecycleStatus | undefined>;
}

export interface LifecycleProjection {
  _lifecycleLog: StreamChannel<LifecycleEntry>;
  lifecycle: AsyncIterable<LifecycleEntry>;
}

/** The entries at or below `path`, from position `startAt`. */
export function filterLifecycleEntries(
  log: StreamChannel<LifecycleEntry>,
  path: Namespace,
  startAt = 0,
): AsyncIterable<LifecycleEntry> {
  return { [Symbol.asyncIterator]: () => selectItems(log, startAt, (entry) => hasPrefix(entry.namespace, path)) };
}

const segmentName = (segment: string) => {
  const colon = segment.indexOf(":");
  return colon === -1 ? segment : segment.slice(0, colon);
};

function defaultSerializeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}

const isRecord = (value: unknown): value is Record<string, any> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The tool call a task was started for (a `ToolNode`'s `Send`, or its list of calls). */
function toolCallOf(input: unknown): string | undefined {
  if (isRecord(input) && isRecord(input.tool_call))
    return typeof input.tool_call.id === "string" ? input.tool_call.id : undefined;
  if (Array.isArray(input)) for (const call of input) if (isRecord(call) && typeof call.id === "string") return call.id;
  return undefined;
}

interface Tracked {
  namespace: Namespace;
  graphName: string;
  status: LifecycleStatus | undefined;
}

/** A subgraph to mark completed at the next event, unless its parent's task result comes first. */
interface Completion {
  namespace: Namespace;
  /** The parent's node that reported it (an `updates` event), or undefined for a task result. */
  node?: { parent: Namespace; name: string };
}

export function createLifecycleTransformer(
  options: LifecycleTransformerOptions = {},
): NativeStreamTransformer<LifecycleProjection> {
  const {
    rootGraphName = "root",
    initialStatus = "running",
    emitRootOnRegister = true,
    getGraphName = (ns: Namespace) => (ns.length ? segmentName(ns[ns.length - 1]!) : rootGraphName),
    serializeError = defaultSerializeError,
    getTerminalStatusOverride,
  } = options;
  const log = StreamChannel.local<LifecycleEntry>();
  const tracked = new Map<string, Tracked>();
  const causes = new Map<string, Cause>();
  /** A namespace's agent name (`lc_agent_name` in its tasks' metadata), once its first task is seen. */
  const agentNames = new Map<string, string | undefined>();
  /** Tool call ids by the id of the task started for them. */
  const toolCalls = new Map<string, string>();
  const questions = new Set<string>();
  let completions: Completion[] = [];
  let emitter: StreamEmitter | undefined;
  let emitting = 0;
  let ended = false;

  const graphNameOf = (ns: Namespace) => (ns.length ? agentNames.get(nsKey(ns)) || getGraphName(ns) : rootGraphName);

  const track = (ns: Namespace): Tracked => {
    const key = nsKey(ns);
    let entry = tracked.get(key);
    if (!entry) tracked.set(key, (entry = { namespace: ns, graphName: graphNameOf(ns), status: undefined }));
    return entry;
  };

  const emit = (ns: Namespace, status: LifecycleStatus, extras: { cause?: Cause; error?: string } = {}) => {
    const entry = track(ns);
    if (entry.status === status && extras.error == null) return;
    entry.status = status;
    const data = {
      event: status,
      graph_name: entry.graphName,
      ...(extras.cause != null ? { cause: extras.cause } : {}),
      ...(extras.error != null ? { error: extras.error } : {}),
    };
    const timestamp = Date.now();
    log.push({ namespace: ns, timestamp, ...data });
    if ((ns.length === 0 && !emitRootOnRegister) || !emitter) return;
    emitting++;
    try {
      emitter.push(ns, { type: "event", seq: 0, method: "lifecycle", params: { namespace: ns, timestamp, data } });
    } finally {
      emitting--;
    }
  };

  /** A subagent run by a tool call starts with that call as its cause. */
  const toolCallCause = (ns: Namespace): Cause | undefined => {
    if (!agentNames.get(nsKey(ns))) return undefined;
    const segment = ns[ns.length - 1]!;
    const colon = segment.indexOf(":");
    const toolCallId = colon === -1 ? undefined : toolCalls.get(segment.slice(colon + 1));
    return toolCallId ? { type: "toolCall", tool_call_id: toolCallId } : undefined;
  };

  const ensureStarted = (ns: Namespace) => {
    for (let length = 1; length <= ns.length; length++) {
      const prefix = ns.slice(0, length);
      if (tracked.has(nsKey(prefix))) continue;
      track(prefix);
      const cause = causes.get(nsKey(prefix)) ?? toolCallCause(prefix);
      emit(prefix, "started", cause ? { cause } : {});
    }
  };

  const isStarted = (ns: Namespace) => tracked.get(nsKey(ns))?.status === "started";

  const flushCompletions = () => {
    if (!completions.length) return;
    const due = completions;
    completions = [];
    for (const { namespace } of due) if (isStarted(namespace)) emit(namespace, "completed");
  };

  const enqueueCompletion = (completion: Completion) => {
    const key = nsKey(completion.namespace);
    if (!isStarted(completion.namespace) || completions.some((c) => nsKey(c.namespace) === key)) return;
    completions.push(completion);
  };

  /** The started child of `parent` that `node` runs (its segment is the node's name, with or without a task id). */
  const startedChildOf = (parent: Namespace, node: string): Namespace | undefined => {
    for (const entry of tracked.values()) {
      const ns = entry.namespace;
      if (ns.length !== parent.length + 1 || entry.status !== "started" || !hasPrefix(ns, parent)) continue;
      const last = ns[ns.length - 1]!;
      if (last === node || last.startsWith(`${node}:`)) return ns;
    }
    return undefined;
  };

  const end = (status: LifecycleStatus) => {
    for (const entry of tracked.values())
      if (entry.namespace.length && entry.status === "started") emit(entry.namespace, status);
    emit([], status);
    log.close();
  };
  const defaultStatus = (): LifecycleStatus => (questions.size > 0 ? "interrupted" : "completed");

  return {
    __native: true,
    init: () => ({ _lifecycleLog: log, lifecycle: filterLifecycleEntries(log, [], 0) }),
    onRegister(handle) {
      emitter = handle;
      track([]);
      if (emitRootOnRegister) emit([], initialStatus);
    },
    process(event) {
      if (emitting > 0) return true;
      const ns = event.params.namespace;
      const data = event.params.data;
      // A task's result (not an internal task's) settles the child it ran.
      const result =
        event.method === "tasks" &&
        isRecord(data) &&
        "result" in data &&
        typeof data.name === "string" &&
        typeof data.id === "string" &&
        !data.name.startsWith("__")
          ? { name: data.name as string, id: data.id as string }
          : undefined;
      if (result) {
        const key = nsKey(ns);
        completions = completions.filter(
          (c) => !(c.node && c.node.name === result.name && nsKey(c.node.parent) === key),
        );
      } else if (event.method === "tasks" && isRecord(data)) {
        const key = nsKey(ns);
        if (!agentNames.has(key)) {
          const name = isRecord(data.metadata) ? data.metadata.lc_agent_name : undefined;
          agentNames.set(key, typeof name === "string" ? name : undefined);
        }
        const toolCallId = typeof data.id === "string" ? toolCallOf(data.input) : undefined;
        if (toolCallId) toolCalls.set(data.id as string, toolCallId);
      }
      flushCompletions();
      if (event.method === "lifecycle") {
        // Lifecycle events from the source only tell a cause; this transformer sends its own.
        if (isRecord(data) && data.event === "started" && isRecord(data.cause) && typeof data.cause.type === "string")
          causes.set(nsKey(ns), data.cause as Cause);
        ensureStarted(ns);
        return false;
      }
      ensureStarted(ns);
      if (event.method === "input" && isRecord(data) && data.event === "requested" && typeof data.id === "string")
        questions.add(data.id);
      if (result) {
        const child = [...ns, `${result.name}:${result.id}`];
        if (isStarted(child)) enqueueCompletion({ namespace: child });
      }
      const node = event.params.node;
      if (event.method === "updates" && typeof node === "string" && !node.startsWith("__")) {
        const child = startedChildOf(ns, node);
        if (child) enqueueCompletion({ namespace: child, node: { parent: ns, name: node } });
      }
      return true;
    },
    finalize() {
      if (ended) return;
      ended = true;
      flushCompletions();
      let status: ReturnType<NonNullable<typeof getTerminalStatusOverride>>;
      try {
        status = getTerminalStatusOverride?.();
      } catch {
        status = undefined;
      }
      // A status known at once ends the lifecycle at once; a promised one when it settles.
      if (!(status instanceof Promise)) return end(status ?? defaultStatus());
      return status.then(
        (known) => end(known ?? defaultStatus()),
        () => end(defaultStatus()),
      );
    },
    fail(error) {
      if (ended) return;
      ended = true;
      for (const entry of tracked.values())
        if (entry.namespace.length && entry.status === "started") emit(entry.namespace, "failed");
      emit([], "failed", { error: serializeError(error) });
      log.fail(error);
    },
  };
}
