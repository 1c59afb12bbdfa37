import type { Breakpoints } from "../algo/breakpoints.js";
import type { GraphSpec } from "../algo/spec.js";
import type { BaseCheckpointSaver } from "../checkpoint/base.js";
import type { BaseStore } from "../store/base.js";
import type { StateSnapshot } from "../thread/snapshot.js";

/** What the run loop needs from a compiled graph. */
export interface GraphInternals {
  readonly name: string;
  readonly spec: GraphSpec;
  readonly checkpointer?: BaseCheckpointSaver;
  /** Long-term memory given to nodes as `config.store` (a subgraph without one uses its parent's). */
  readonly store?: BaseStore;
  readonly interruptBefore?: Breakpoints;
  readonly interruptAfter?: Breakpoints;
  /** LangGraph's positional answer matching, without checking the question (opt-in). */
  readonly positional: boolean;
  /**
   * How this graph keeps checkpoints when it runs as a subgraph (`compile({ checkpointer })`):
   * undefined, one history per parent task (the default); `"persistent"` (`checkpointer: true`),
   * one history under the node's name that carries over between the parent's runs; `"none"`
   * (`checkpointer: false`), no checkpoints at all.
   */
  readonly subgraphCheckpoints?: SubgraphCheckpoints;
}

export type SubgraphCheckpoints = "persistent" | "none";

export type Durability = "sync" | "async" | "exit";

export interface RunOptions {
  recursionLimit?: number;
  durability?: Durability;
  interruptBefore?: Breakpoints;
  interruptAfter?: Breakpoints;
  signal?: AbortSignal;
  /** How long a run's claim on its thread lasts without renewal (ms). */
  claimTtlMs?: number;
  /** How long a cancelled run waits for its running nodes to honour the signal before abandoning them (ms). */
  abortGraceMs?: number;
  /** Called with the thread's state when the run stops, if it can be told without reading it back (see RunConfig). */
  onFinalState?: (state: StateSnapshot) => void;
}

export const DEFAULT_RECURSION_LIMIT = 25;
export const DEFAULT_CLAIM_TTL_MS = 30_000;
export const DEFAULT_ABORT_GRACE_MS = 5_000;
