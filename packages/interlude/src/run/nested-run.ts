/**
 * A graph run inside a node's function (`inner.invoke()` or `inner.stream()` in a node, with or
 * without the node's config). It is a subgraph of the node's run (thread, namespace, saver,
 * cancellation), and, as LangGraph.js's ambient config makes it:
 * - without callbacks of its own it reports under the node's run, so the outer run's handlers
 *   (its `messages` stream, tracers) see its nodes and chat models;
 * - its nodes see the keys the outer run was given in `configurable`, under its own, and the
 *   node's tags, metadata and context unless it was given its own;
 * - streamed, its reader gets its chunks as a root graph's, while the outer stream still gets
 *   them under the node's namespace when it streams subgraphs.
 */
import { callerKeys } from "../checkpoint/tuple.js";
import type { RunnableConfig } from "../checkpoint/types.js";
import { NS_SEP } from "../constants.js";
import { currentTask } from "../runner/scope.js";
import type { Emitter, StreamMode } from "./emitter.js";

/**
 * `config`, with what the node it runs in was given, as LangGraph.js's ambient config adds it:
 * the node's callbacks, tags, metadata and runtime context where it has none of its own, and
 * the caller's configurable keys (a tenant, a user id) under its own. (Its thread, namespace
 * and recursion limit come from the node's run: RunState.)
 */
export function withNodeConfig<C extends RunnableConfig>(config: C): C {
  const node = currentTask()?.config as RunnableConfig | undefined;
  if (!node) return config;
  // Copied only when something is added (a subgraph run as a node is given the node's config whole).
  let merged: RunnableConfig | undefined;
  for (const field of INHERITED)
    if (config[field] === undefined && node[field] !== undefined) (merged ??= { ...config })[field] = node[field];
  const keys = callerKeys(node);
  if (keys) (merged ??= { ...config }).configurable = { ...keys, ...config.configurable };
  return (merged ?? config) as C;
}

/** What a graph invoked inside a node takes from the node's config when its own config has none. */
const INHERITED = ["callbacks", "tags", "metadata", "context"] as const;

/**
 * The stream of a graph streamed inside a node: its run tells chunks under the node's namespace
 * and below; its reader sees its own level as a root graph's (with `subgraphs`, every level
 * under its namespace, each namespace whole), and `custom` chunks from every level.
 */
export class NestedStream implements Emitter {
  readonly modes: ReadonlySet<StreamMode>;
  /** Every namespace comes here (callback handlers' too): `emit` picks what the reader sees. */
  readonly subgraphs = true;
  readonly envelopes?: boolean;
  private base: string | undefined;

  constructor(private readonly reader: Emitter) {
    this.modes = reader.modes;
    this.envelopes = reader.envelopes;
  }

  /** Told by the run once it knows its namespace. */
  at(ns: string): void {
    this.base = ns;
  }

  emit(ns: string, mode: StreamMode, chunk: unknown): void {
    const base = this.base;
    if (base === undefined) return;
    // As LangGraph.js: with subgraphs, the reader sees the namespaces whole (its own run's too).
    const subgraphs = this.reader.subgraphs;
    if (ns === base) this.reader.emit(subgraphs ? ns : "", mode, chunk);
    // A deeper level's `custom` chunks reach a reader without subgraphs too (see queueEmitter).
    else if ((subgraphs || mode === "custom") && ns.startsWith(base + NS_SEP))
      this.reader.emit(subgraphs ? ns : "", mode, chunk);
  }
}

/** The emitter of a run inside a node: the outer run's, and its own reader's when it is streamed. */
export function nestedRunEmitter(
  outer: Emitter | undefined,
  own: Emitter | undefined,
  ns: string,
): Emitter | undefined {
  if (!(own instanceof NestedStream)) return outer;
  own.at(ns);
  if (!outer) return own;
  const modes = new Set(own.modes);
  // The outer stream takes a subgraph's chunks only when it streams subgraphs (`custom` always).
  if (outer.subgraphs) for (const mode of outer.modes) modes.add(mode);
  else if (outer.modes.has("custom")) modes.add("custom");
  return {
    modes,
    subgraphs: true,
    envelopes: outer.envelopes || own.envelopes,
    emit(chunkNs, mode, chunk) {
      outer.emit(chunkNs, mode, chunk);
      own.emit(chunkNs, mode, chunk);
    },
  };
}
