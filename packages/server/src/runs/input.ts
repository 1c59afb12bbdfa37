/** A run's request (kwargs) turned into what `graph.stream()` takes. */
import { Command, isResumeMap, Send, type StreamConfig, type StreamMode } from "@interlude/core";
import type { RunKwargs } from "../store/records.js";

const CORE_MODES: Record<string, StreamMode | undefined> = {
  values: "values",
  updates: "updates",
  custom: "custom",
  checkpoints: "checkpoints",
  tasks: "tasks",
  debug: "debug",
  messages: "messages",
  "messages-tuple": "messages",
  tools: "tools",
};

/**
 * The stream modes a client asked for, as (API name, core mode) pairs (the request refused unknown
 * ones); `events` and `lifecycle` have no core mode (runs/event-stream.ts, runs/subgraph-lifecycle.ts).
 */
export function streamModes(kwargs: RunKwargs): Array<[string, StreamMode]> {
  const asked = kwargs.stream_mode?.length ? kwargs.stream_mode : ["values"];
  return asked.flatMap((name) => (CORE_MODES[name] ? [[name, CORE_MODES[name]!] as [string, StreamMode]] : []));
}

/** Modes the server streams itself rather than through the core (`events`, `lifecycle`). */
export const wantsMode = (kwargs: RunKwargs, mode: "events" | "lifecycle"): boolean =>
  kwargs.stream_mode?.includes(mode) === true;

function gotoOf(goto: unknown): Array<string | Send> | undefined {
  if (goto === undefined || goto === null) return undefined;
  const list = Array.isArray(goto) ? goto : [goto];
  return list.map((g) =>
    typeof g === "object" && g !== null && "node" in g
      ? new Send(String((g as { node: unknown }).node), (g as { input?: unknown }).input)
      : String(g),
  );
}

/** A Command as the API sends it (`goto` a node name, a `{ node, input }` Send, or a list of them). */
export function commandOf(
  c: { resume?: unknown; update?: unknown; goto?: unknown },
  extra: { by?: string; reason?: string } = {},
): Command {
  return new Command({ resume: c.resume, update: c.update as never, goto: gotoOf(c.goto) as never, ...extra });
}

/** Input of the graph: the command (with who answered), or the input (null continues the thread). */
export function graphInput(kwargs: RunKwargs, identity: string): unknown {
  const c = kwargs.command;
  if (!c) return kwargs.input ?? null;
  // A plain answer goes to the interrupt it was reserved for when queued, not to whatever is pending now.
  const bound = kwargs.answers?.length === 1 && !isResumeMap(c.resume) ? { [kwargs.answers[0]!]: c.resume } : undefined;
  return commandOf({ ...c, resume: bound ?? c.resume }, { by: identity, reason: c.reason });
}

export function graphConfig(threadId: string, kwargs: RunKwargs, signal: AbortSignal): StreamConfig {
  const config = (kwargs.config ?? {}) as {
    configurable?: Record<string, unknown>;
    recursion_limit?: number;
    tags?: string[];
  };
  const checkpointId = kwargs.checkpoint_id ?? (config.configurable?.checkpoint_id as string | undefined);
  const configurable: Record<string, unknown> = { ...config.configurable, thread_id: threadId };
  if (checkpointId) configurable.checkpoint_id = checkpointId;
  else delete configurable.checkpoint_id;
  const out: StreamConfig = { configurable, signal, subgraphs: true };
  if (kwargs.context !== undefined) out.context = kwargs.context;
  if (config.recursion_limit !== undefined) out.recursionLimit = config.recursion_limit;
  if (kwargs.interrupt_before !== undefined) out.interruptBefore = kwargs.interrupt_before;
  if (kwargs.interrupt_after !== undefined) out.interruptAfter = kwargs.interrupt_after;
  if (kwargs.durability !== undefined) out.durability = kwargs.durability;
  return out;
}
