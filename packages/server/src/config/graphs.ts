/**
 * Loads the graphs named in the config and binds each to the server's checkpoint storage,
 * whether the module exports a builder (StateGraph), an already compiled graph or an
 * `entrypoint()` workflow.
 */
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import {
  type BaseCheckpointSaver,
  type BaseStore,
  CompiledStateGraph,
  Entrypoint,
  InMemoryCache,
  StateGraph,
} from "@interlude/core";
import type { ServerConfig } from "./config.js";
import { exportEnv } from "./env.js";
import { ConfigError } from "./errors.js";
import { serveWorkflow, type Workflow } from "./workflow.js";

type Breakpoints = ReadonlySet<string> | "*" | undefined;
const listOf = (b: Breakpoints): string[] | "*" | undefined => (b === undefined ? undefined : b === "*" ? "*" : [...b]);

// Duck-typed too: a graph module may resolve its own copy of the interlude package.
const isCompiled = (x: unknown): x is CompiledStateGraph =>
  x instanceof CompiledStateGraph || (typeof x === "object" && x !== null && "builder" in x && "spec" in x);
const isWorkflow = (x: unknown): x is Workflow =>
  x instanceof Entrypoint ||
  (typeof x === "object" &&
    x !== null &&
    typeof (x as Workflow).name === "string" &&
    isCompiled((x as Workflow).graph));
const isBuilder = (x: unknown): x is StateGraph<any> =>
  x instanceof StateGraph ||
  (typeof x === "object" && x !== null && typeof (x as StateGraph<any>).compile === "function");

/** The server's storage a graph is compiled with: its checkpoints, and LangGraph's store (long-term memory) for its nodes. */
export interface GraphStorage {
  saver: BaseCheckpointSaver;
  store?: BaseStore;
}

function bind(graphId: string, exported: unknown, { saver, store }: GraphStorage): CompiledStateGraph {
  if (isCompiled(exported)) {
    return exported.builder.compile({
      checkpointer: saver,
      store,
      interruptBefore: listOf(exported.interruptBefore as Breakpoints),
      interruptAfter: listOf(exported.interruptAfter as Breakpoints),
      name: exported.name,
      resumeMatching: exported.positional ? "positional" : "checked",
      cache: exported.cache,
    }) as CompiledStateGraph;
  }
  // A builder's nodes with a cachePolicy cache in this process, as they would in the user's own compile with a cache.
  if (isBuilder(exported))
    return exported.compile({
      checkpointer: saver,
      store,
      name: graphId,
      cache: new InMemoryCache(),
    }) as CompiledStateGraph;
  if (isWorkflow(exported)) return serveWorkflow(exported, { saver, store });
  throw new ConfigError(
    `Graph "${graphId}": the export is neither a StateGraph, a compiled graph nor an entrypoint() workflow (got ${typeof exported}). Export the builder, builder.compile() or the workflow.`,
  );
}

export class GraphRegistry {
  private constructor(private readonly graphs: ReadonlyMap<string, CompiledStateGraph>) {}

  static async load(config: ServerConfig, storage: GraphStorage): Promise<GraphRegistry> {
    const graphs = new Map<string, CompiledStateGraph>();
    // Modules often read their variables as they load (a model's API key).
    exportEnv(config.env);
    for (const [id, ref] of Object.entries(config.graphs)) {
      if (!existsSync(ref.path)) throw new ConfigError(`Graph "${id}": module ${ref.path} does not exist.`);
      const module = (await import(pathToFileURL(ref.path).href)) as Record<string, unknown>;
      let exported = module[ref.exportName];
      if (exported === undefined)
        throw new ConfigError(
          `Graph "${id}": ${ref.path} has no export "${ref.exportName}" (it has: ${Object.keys(module).join(", ") || "none"}).`,
        );
      if (typeof exported === "function" && !isBuilder(exported)) exported = await (exported as () => unknown)();
      graphs.set(id, bind(id, exported, storage));
    }
    return new GraphRegistry(graphs);
  }

  /** Graphs given in-process (tests, embedding), bound to the storage like loaded ones. */
  static async of(graphs: Record<string, unknown>, storage: GraphStorage): Promise<GraphRegistry> {
    const bound = new Map<string, CompiledStateGraph>();
    for (const [id, graph] of Object.entries(graphs))
      bound.set(
        id,
        bind(id, typeof graph === "function" && !isBuilder(graph) ? await (graph as () => unknown)() : graph, storage),
      );
    return new GraphRegistry(bound);
  }

  static merge(...registries: GraphRegistry[]): GraphRegistry {
    return new GraphRegistry(new Map(registries.flatMap((r) => [...r.graphs])));
  }

  get(graphId: string): CompiledStateGraph | undefined {
    return this.graphs.get(graphId);
  }

  ids(): string[] {
    return [...this.graphs.keys()];
  }
}
