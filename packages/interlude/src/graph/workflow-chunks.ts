/**
 * A workflow's stream as LangGraph's functional API shows it: the entrypoint is one node over
 * an internal state (`input`, `output`, `previous`), and callers see only its output. Its own
 * update is `{ [name]: output }`; `values` is the output, once it has one. Chunks of `task()`
 * calls and subgraphs (below the root namespace) pass as they are.
 */
import { END, INTERRUPT, START } from "../constants.js";
import type { StreamMode } from "../run/emitter.js";

export interface WorkflowChunkShape {
  /** Chunks as `[mode, chunk]` (several modes asked for). */
  multi: boolean;
  /** Chunks with their namespace first. */
  subgraphs: boolean;
  /**
   * The inner run streams its own `values` (a v3 run: each comes after its checkpoint's
   * envelope); the workflow's values are made of them, and of its update otherwise.
   */
  innerValues: boolean;
}

export async function* workflowChunks(
  source: AsyncIterable<unknown>,
  name: string,
  asked: readonly StreamMode[],
  shape: WorkflowChunkShape,
): AsyncIterableIterator<unknown> {
  const wants = new Set(asked);
  const out = (ns: string[], mode: StreamMode, chunk: unknown) =>
    shape.subgraphs ? (shape.multi ? [ns, mode, chunk] : [ns, chunk]) : shape.multi ? [mode, chunk] : chunk;
  let hasOutput = false;
  /** A root envelope waits for the values it comes with, which may be dropped. */
  let envelope: unknown;
  // The inner run is always asked for a list of modes: its chunks are `[ns?, mode, chunk]`.
  for await (const item of source) {
    let ns: string[] = [];
    let mode: StreamMode;
    let chunk: unknown;
    if (shape.subgraphs) [ns, mode, chunk] = item as [string[], StreamMode, unknown];
    else [mode, chunk] = item as [StreamMode, unknown];
    if (ns.length > 0) {
      yield out(ns, mode, chunk);
      continue;
    }
    if (mode === "checkpoints" && shape.innerValues && !wants.has("checkpoints")) {
      envelope = chunk;
      continue;
    }
    if (mode === "values" && shape.innerValues) {
      const state = chunk as Record<string, unknown>;
      const told = INTERRUPT in state ? state : hasOutput ? state.output : undefined;
      if (told !== undefined || hasOutput) {
        if (envelope !== undefined && !(INTERRUPT in state)) yield out(ns, "checkpoints", envelope);
        yield out(ns, "values", told);
      }
      envelope = undefined;
      continue;
    }
    if (mode === "tasks" && (chunk as { name?: string }).name === name) {
      yield out(ns, mode, workflowTask(chunk as Record<string, unknown>));
      continue;
    }
    if (mode !== "updates") {
      yield out(ns, mode, chunk);
      continue;
    }
    const update = chunk as Record<string, unknown>;
    const own = name in update ? (update[name] as { output?: unknown }) : undefined;
    if (own) hasOutput = true;
    if (wants.has("updates")) yield out(ns, "updates", own ? { [name]: own.output } : update);
    if (own && wants.has("values") && !shape.innerValues) yield out(ns, "values", own.output);
  }
}

/** The workflow's own task as LangGraph shows it: started by the input, ending with its output. */
function workflowTask(event: Record<string, unknown>): Record<string, unknown> {
  const shown = { ...event };
  if ("input" in event) {
    shown.input = (event.input as { input?: unknown } | undefined)?.input;
    shown.triggers = [START];
  }
  if ("result" in event) {
    const result = event.result as { output?: unknown };
    shown.result = "output" in result ? { [END]: result.output } : {};
  }
  return shown;
}
