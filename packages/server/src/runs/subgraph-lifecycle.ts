/**
 * Stream mode `lifecycle`, as the SDK types it (`LifecycleStreamEvent`): an event named
 * `lifecycle|<namespace>` when a subgraph starts, and when it completes, fails or is interrupted,
 * with `tool_call_id` when a tool call started it. Derived from the core's `tasks` chunks (the run
 * streams them, with subgraphs, whenever this mode is asked): a namespace seen for the first time
 * has started; the result of the parent task that ran it (namespace segment `node:<task id>`) ends
 * it. Pure: chunks in, events out.
 */

export type LifecycleStatus = "started" | "completed" | "failed" | "interrupted";

export interface LifecycleData {
  event: LifecycleStatus;
  namespace: string[];
  tool_call_id?: string;
  error?: { error: string; message: string };
}

export type LifecycleEvent = [name: string, data: LifecycleData];

interface TaskChunk {
  id?: unknown;
  name?: unknown;
  input?: unknown;
  result?: unknown;
  error?: { name?: string; message?: string } | null;
  interrupts?: unknown[];
}

const keyOf = (ns: readonly string[]) => ns.join("|");
const taskIdOf = (segment: string) => segment.slice(segment.lastIndexOf(":") + 1);

const idOf = (x: unknown) =>
  typeof (x as { id?: unknown } | null)?.id === "string" ? (x as { id: string }).id : undefined;

/**
 * The tool call a task was started for: a `Send` of one tool call (`{ tool_call }`), a list of
 * tool calls (the first with an id), or a tools node's state whose last message asks exactly one.
 */
function toolCallOf(input: unknown): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  if (Array.isArray(input)) return input.map(idOf).find((id) => id !== undefined);
  const own = idOf((input as { tool_call?: unknown }).tool_call);
  if (own) return own;
  const messages = (input as { messages?: unknown }).messages;
  const calls = Array.isArray(messages)
    ? (messages.at(-1) as { tool_calls?: unknown } | undefined)?.tool_calls
    : undefined;
  return Array.isArray(calls) && calls.length === 1 ? idOf(calls[0]) : undefined;
}

export class SubgraphLifecycle {
  /** Subgraphs started and not yet ended, by namespace key. */
  private readonly open = new Map<string, string[]>();
  private readonly seen = new Set<string>();
  /** Task id -> the tool call it runs. */
  private readonly toolCalls = new Map<string, string>();

  /** The events a chunk of the core's stream (`[namespace, mode, chunk]`) implies. */
  observe(ns: readonly string[], mode: string, chunk: unknown): LifecycleEvent[] {
    const out = this.startedUpTo(ns);
    if (mode !== "tasks") return out;
    const task = chunk as TaskChunk;
    if (typeof task.id !== "string") return out;
    if (!("result" in task)) {
      const call = toolCallOf(task.input);
      if (call) this.toolCalls.set(task.id, call);
      return out;
    }
    const child = keyOf([...ns, `${String(task.name)}:${task.id}`]);
    if (!this.open.has(child)) return out;
    if (task.error) {
      const error = { error: task.error.name ?? "Error", message: task.error.message ?? "" };
      out.push(...this.end(child, "failed", error));
    } else out.push(...this.end(child, task.interrupts?.length ? "interrupted" : "completed"));
    return out;
  }

  /** The run is over: subgraphs still open end with it (failed when it failed). */
  ended(failure?: { error: string; message: string }): LifecycleEvent[] {
    const error = failure && { error: failure.error, message: failure.message };
    return [...this.open.keys()].reverse().flatMap((key) => this.end(key, error ? "failed" : "completed", error));
  }

  /** `started` for each namespace of the path not seen yet, outermost first. */
  private startedUpTo(ns: readonly string[]): LifecycleEvent[] {
    const out: LifecycleEvent[] = [];
    for (let length = 1; length <= ns.length; length++) {
      const namespace = ns.slice(0, length);
      const key = keyOf(namespace);
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.open.set(key, namespace);
      const call = this.toolCalls.get(taskIdOf(namespace[length - 1]!));
      out.push(event(namespace, { event: "started", namespace, ...(call ? { tool_call_id: call } : {}) }));
    }
    return out;
  }

  /** Ends a subgraph, and first whatever it left open inside it. */
  private end(key: string, status: LifecycleStatus, error?: LifecycleData["error"]): LifecycleEvent[] {
    const out: LifecycleEvent[] = [];
    for (const [inner, namespace] of [...this.open].reverse()) {
      if (inner !== key && !inner.startsWith(`${key}|`)) continue;
      this.open.delete(inner);
      out.push(event(namespace, { event: status, namespace, ...(error ? { error } : {}) }));
    }
    return out;
  }
}

const event = (ns: readonly string[], data: LifecycleData): LifecycleEvent => [`lifecycle|${keyOf(ns)}`, data];
