/**
 * The options of one run (`invoke`, `stream`), declared once: the config types extend them, the
 * run reads them as given, and `configWithoutOptions` tells them from the config nodes receive.
 */
import type { RunnableConfig } from "../checkpoint/types.js";
import { InvalidRunOptionError } from "../errors/graph.js";
import { everyName } from "../errors/options.js";
import type { RunControl } from "../primitives/run-control.js";
import type { StateSnapshot } from "../thread/snapshot.js";
import type { StreamMode } from "./emitter.js";
import type { Durability } from "./persist.js";

export interface RunOptions {
  /**
   * The steps a run may take before GraphRecursionError (default 25), counted as LangGraph.js
   * counts them: a run given input has `recursionLimit` node steps, and needing all of them is
   * over the limit; a Command without an answer has one more, a continued or resumed run two more
   * (run.ts, `loop`).
   */
  recursionLimit?: number;
  durability?: Durability;
  /** Pause before these nodes run (over the graph's own `compile({ interruptBefore })`). */
  interruptBefore?: string[] | "*";
  interruptAfter?: string[] | "*";
  signal?: AbortSignal;
  /** The longest the run may take (ms), LangChain's `timeout`: then it stops as a cancelled run. */
  timeout?: number;
  /** Asked to drain, the run stops at its next step boundary with `GraphDrained` (primitives/run-control.ts). */
  control?: RunControl;
  /** The most tasks of a step that run at once (default: all). */
  maxConcurrency?: number;
  /** What `invoke` returns and `values` chunks carry: one state key's value, or these keys (default: the output schema's). */
  outputKeys?: string | string[];
  /** @deprecated LangGraph's older spelling of `durability`: `false` is `"exit"`, `true` is `"async"`. */
  checkpointDuring?: boolean;
  /**
   * How long this run's claim on its thread lasts without renewal (default 30 s). A process
   * that dies while running leaves the thread busy for at most this long; a run paused for
   * longer (its process stopped, or cut off from storage) renews it before its next write, and
   * stops with `ThreadClaimLostError` if another caller has the thread by then.
   */
  claimTtlMs?: number;
  /**
   * Interlude: once `signal` aborts, how long the run waits for running nodes to stop (they get
   * the signal as `config.signal`) before abandoning them; what they return later is dropped.
   * Default 5 s.
   */
  abortGraceMs?: number;
  /**
   * Interlude: called once the run has stopped (finished or paused, not failed) with the
   * thread's state as `getState()` would return it, built from what the run holds instead of
   * read back from the checkpointer. Not called when the run cannot tell it exactly (it saved
   * no checkpoint, or the checkpoint it stopped at carries an update sent with the answer): read
   * `getState()` then.
   */
  onFinalState?: (state: StateSnapshot) => void;
}

export interface StreamOptions extends RunOptions {
  streamMode?: StreamMode | StreamMode[];
  subgraphs?: boolean;
  /** `"text/event-stream"`: chunks as server-sent events (bytes), to serve as they come (run/sse.ts). */
  encoding?: "text/event-stream";
}

export const DEFAULT_RECURSION_LIMIT = 25;
export const DEFAULT_ABORT_GRACE_MS = 5_000;

/** Every option's key: the compiler refuses this record until an option added above is listed here. */
const OPTION_KEYS: Record<keyof StreamOptions, true> = {
  recursionLimit: true,
  durability: true,
  interruptBefore: true,
  interruptAfter: true,
  signal: true,
  timeout: true,
  maxConcurrency: true,
  control: true,
  outputKeys: true,
  checkpointDuring: true,
  claimTtlMs: true,
  abortGraceMs: true,
  onFinalState: true,
  streamMode: true,
  subgraphs: true,
  encoding: true,
};

/**
 * The run's limits, checked before anything runs. Its breakpoints are not checked against the
 * graph's nodes: LangGraph.js's own tests name a subgraph's node there, which the run ignores.
 */
export function checkRunOptions(options: RunOptions): void {
  const { recursionLimit, timeout } = options;
  if (recursionLimit !== undefined && !(Number.isInteger(recursionLimit) && recursionLimit >= 1))
    throw new InvalidRunOptionError("recursionLimit", recursionLimit, "a whole number of 1 or more");
  if (timeout !== undefined && !(typeof timeout === "number" && timeout >= 0))
    throw new InvalidRunOptionError("timeout", timeout, "a number of milliseconds, 0 or more");
}

/** Every durability. */
const DURABILITIES = everyName<Durability>({ sync: 1, async: 1, exit: 1 });

/** The durability a run asked for, in either spelling; a value that is none (a misspelling) is refused. */
export function durabilityOf(options: RunOptions): Durability | undefined {
  if (options.durability !== undefined) {
    if (!DURABILITIES.includes(options.durability))
      throw new InvalidRunOptionError("durability", options.durability, DURABILITIES);
    return options.durability;
  }
  return options.checkpointDuring === undefined ? undefined : options.checkpointDuring ? "async" : "exit";
}

/** The caller's config without the run options: what nodes receive (and subgraphs inherit). */
export function configWithoutOptions(config: RunnableConfig & StreamOptions): RunnableConfig {
  const out: RunnableConfig = {};
  for (const key in config) if (!Object.hasOwn(OPTION_KEYS, key)) out[key] = config[key];
  return out;
}
