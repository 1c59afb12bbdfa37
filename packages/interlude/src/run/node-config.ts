/**
 * The `config` each node of a run is called with: the caller's config, plus the run's writer
 * (`custom` stream mode), `interrupt`, its AbortSignal, its store, and the task's namespace.
 */

import { shallowCopy } from "../checkpoint/plain-copy.js";
import type { RunnableConfig } from "../checkpoint/types.js";
import { interrupt } from "../interrupt/interrupt.js";

export class NodeConfigs {
  /** What every node config of this run shares; built once (spreading the caller's config per task was ~20% of a step). */
  private base?: { config: Record<string, unknown>; configurable: Record<string, unknown> };

  constructor(
    private readonly config: RunnableConfig,
    private readonly threadId: string | undefined,
    private readonly writer: (chunk: unknown) => void,
    private readonly signal: AbortSignal | undefined,
    private readonly store: unknown,
  ) {}

  /** The config of a task saving under checkpoint namespace `ns`. */
  for(ns: string): Record<string, unknown> {
    // Both bases already hold every key (same order as before), so each task's config is two
    // plain clones and two stores: adding a key to a clone costs ~1 us, a store ~10 ns.
    const base = (this.base ??= this.makeBase());
    const configurable = { ...base.configurable };
    configurable.checkpoint_ns = ns;
    const config = { ...base.config };
    config.configurable = configurable;
    return config;
  }

  private makeBase(): NonNullable<NodeConfigs["base"]> {
    // Copied then set key by key (see shallowCopy): the keys in the order a spread gave them.
    const config = shallowCopy(this.config);
    config.configurable = undefined;
    config.writer = this.writer;
    config.interrupt = interrupt;
    config.signal = this.signal;
    const configurable = shallowCopy(this.config.configurable);
    configurable.thread_id = this.threadId;
    configurable.checkpoint_ns = "";
    return { config: withStore(config, this.store), configurable };
  }
}

/** `config.store` only for graphs that have one (LangGraph's nodes see no `store` key otherwise). */
function withStore(config: Record<string, unknown>, store: unknown): Record<string, unknown> {
  if (store !== undefined) config.store = store;
  return config;
}
