/**
 * `getGraph()`: a compiled graph's nodes and edges, for drawing. With `@langchain/core` loaded it
 * is LangChain's own `Graph` (as LangGraph gives it: `drawMermaid`, `drawMermaidPng`, `toJSON`,
 * ...); without it, the same nodes and edges with a plain Mermaid drawing.
 */

import type { Breakpoints } from "../algo/breakpoints.js";
import { END, START } from "../constants.js";
import { langchainLoaded } from "../langchain/load.js";
import type { GraphDeclaration, NodeDefinition } from "./declaration.js";
import { ERROR_HANDLER_PREFIX } from "./node-policies.js";

/** A node as LangChain's `Graph` holds it. */
export interface DrawnNode {
  id: string;
  name: string;
  data: unknown;
  metadata?: Record<string, unknown>;
}

export interface DrawnEdge {
  source: string;
  target: string;
  conditional?: boolean;
  data?: string;
}

/** What `getGraph()` gives: LangChain's Graph, or this much of it. */
export interface GraphDrawing {
  nodes: Record<string, DrawnNode>;
  edges: DrawnEdge[];
  /** Mermaid flowchart source, as LangGraph's `getGraph().drawMermaid()`. */
  drawMermaid(params?: Record<string, unknown>): string;
  /** The nodes and edges as plain data, as LangChain's `Graph.toJSON()`. */
  toJSON(): { nodes: Array<{ id: string; type: string; data: unknown }>; edges: DrawnEdge[] };
}

/** The nodes and edges as this file builds them: in order, with which nodes run subgraphs. */
export interface Drawing {
  /**
   * `metadata`, as LangGraph.js draws it: the node's own, `__interrupt` ("before", "after" or
   * "before,after" for a node behind a static breakpoint) and `__tools` (a tools node's tool names).
   */
  nodes: Array<{ id: string; subgraph: boolean; metadata?: Record<string, unknown> }>;
  /** `label`: the path map's key of a conditional edge, when it is not the target's name. */
  edges: Array<{ source: string; target: string; conditional: boolean; label?: string }>;
}

function mermaid({ nodes, edges }: Drawing): string {
  const id = (name: string) => name.replace(/[^A-Za-z0-9_]/g, "_");
  const lines = ["graph TD;"];
  for (const node of nodes)
    lines.push(`\t${id(node.id)}${node.id === START || node.id === END ? `([${node.id}])` : `[${node.id}]`};`);
  for (const edge of edges) {
    const arrow = edge.conditional
      ? edge.label
        ? `-. &nbsp;${edge.label}&nbsp; .->`
        : "-.->"
      : edge.label
        ? `-- &nbsp;${edge.label}&nbsp; -->`
        : "-->";
    lines.push(`\t${id(edge.source)} ${arrow} ${id(edge.target)};`);
  }
  return lines.join("\n");
}

/** `getGraph({ xray })`: subgraphs drawn inside their node, to this depth (`true`: all the way down). */
export interface DrawingOptions {
  xray?: boolean | number;
}

/** A compiled graph run as a node: it draws itself inside it. */
type Drawable = { drawing(options?: DrawingOptions): Drawing };

function isDrawable(action: unknown): action is Drawable {
  return typeof (action as Drawable | null)?.drawing === "function";
}

type Edge = Drawing["edges"][number];

/** The one node no edge leads to (or from, `end`), leaving out `skip`; undefined when there is none or several. */
function onlyOpenNode(drawing: Drawing, end: boolean, skip?: string): string | undefined {
  const reached = new Set(
    drawing.edges.filter((e) => (end ? e.target : e.source) !== skip).map((e) => (end ? e.source : e.target)),
  );
  const open = drawing.nodes.filter((n) => n.id !== skip && !reached.has(n.id));
  return open.length === 1 ? open[0]!.id : undefined;
}

/** LangGraph's trimming of a subgraph drawn inside its node: START and END go when another node then stands alone first (last). */
function trimmed(drawing: Drawing): Drawing {
  let { nodes, edges } = drawing;
  for (const end of [false, true]) {
    const open = onlyOpenNode({ nodes, edges }, end);
    if (open === undefined || onlyOpenNode({ nodes, edges }, end, open) === undefined) continue;
    nodes = nodes.filter((n) => n.id !== open);
    edges = edges.filter((e) => e.source !== open && e.target !== open);
  }
  return { nodes, edges };
}

/**
 * The subgraphs of `drawing` drawn inside their nodes, as LangGraph draws them (`node:inner`
 * ids): an edge into a subgraph's node goes to its first node, an edge out of it leaves from its
 * last; START and END stay when the subgraph has no single first (last) node without them. A
 * subgraph left with one node is drawn as its node.
 */
function expand(drawing: Drawing, builder: GraphDeclaration, depth: number): Drawing {
  const nodes: Drawing["nodes"] = [];
  const inner: Edge[] = [];
  const entry = new Map<string, string>();
  const exit = new Map<string, string>();
  for (const node of drawing.nodes) {
    const action = (Object.hasOwn(builder.nodes, node.id) ? builder.nodes[node.id] : undefined)?.action;
    const sub = isDrawable(action)
      ? trimmed(action.drawing({ xray: depth === Infinity ? true : depth - 1 }))
      : undefined;
    if (!sub || sub.nodes.length < 2) {
      nodes.push(node);
      continue;
    }
    const id = (name: string) => `${node.id}:${name}`;
    for (const child of sub.nodes) nodes.push({ ...child, id: id(child.id) });
    for (const edge of sub.edges) inner.push({ ...edge, source: id(edge.source), target: id(edge.target) });
    const first = onlyOpenNode(sub, false);
    const last = onlyOpenNode(sub, true);
    if (first !== undefined) entry.set(node.id, id(first));
    if (last !== undefined) exit.set(node.id, id(last));
  }
  const drawn = new Set(nodes.map((node) => node.id));
  const edges = drawing.edges
    .map((edge) => ({
      ...edge,
      source: exit.get(edge.source) ?? edge.source,
      target: entry.get(edge.target) ?? edge.target,
    }))
    // An edge into or out of a subgraph with no single first (last) node has no end to draw (as LangGraph.js).
    .filter((edge) => drawn.has(edge.source) && drawn.has(edge.target));
  edges.push(...inner);
  return { nodes, edges };
}

/** The nodes a compiled graph stops before and after (`compile({ interruptBefore, interruptAfter })`). */
export interface DrawnBreakpoints {
  before?: Breakpoints;
  after?: Breakpoints;
}

export function drawingOf(
  builder: GraphDeclaration,
  { xray = false }: DrawingOptions = {},
  breakpoints: DrawnBreakpoints = {},
): Drawing {
  const depth = xray === true ? Infinity : typeof xray === "number" ? xray : 0;
  const drawing = flatDrawing(builder);
  for (const node of drawing.nodes) {
    // As LangGraph.js labels them (a list of names only: "*" marks none).
    const marks = (["before", "after"] as const).filter((when) => {
      const nodes = breakpoints[when];
      return nodes !== undefined && nodes !== "*" && nodes.has(node.id);
    });
    if (!marks.length) continue;
    // In LangGraph.js's order: the node's own keys, __interrupt, then __tools.
    const { __tools, ...own } = node.metadata ?? {};
    node.metadata = { ...own, __interrupt: marks.join(","), ...(__tools === undefined ? {} : { __tools }) };
  }
  return depth > 0 ? expand(drawing, builder, depth) : drawing;
}

/** A node's metadata in the drawing: its own, and the names of the tools it runs (a ToolNode's). */
function nodeMetadata({ options, runnable }: NodeDefinition): Record<string, unknown> | undefined {
  const tools = (runnable as { tools?: unknown } | null)?.tools;
  const names =
    Array.isArray(tools) && tools.length > 0 && tools.every((tool) => typeof tool?.name === "string")
      ? tools.map((tool) => tool.name as string)
      : undefined;
  if (!names) return options.metadata && { ...options.metadata };
  return { ...options.metadata, __tools: names };
}

function flatDrawing(builder: GraphDeclaration): Drawing {
  const nodes: Drawing["nodes"] = [{ id: START, subgraph: false }];
  for (const node of Object.values(builder.nodes)) {
    // As LangGraph.js draws it: a node's own error handler, as a node of its own before it.
    if (node.options.errorHandler) nodes.push({ id: `${ERROR_HANDLER_PREFIX}${node.name}`, subgraph: false });
    nodes.push({ id: node.name, subgraph: typeof node.action !== "function", metadata: nodeMetadata(node) });
  }
  const edges: Drawing["edges"] = [];
  for (const { sources, target } of builder.edges)
    for (const source of sources) edges.push({ source, target, conditional: false });
  for (const branch of builder.branches) {
    if (!branch.pathMap) {
      // As LangGraph.js: a branch without a path map may lead to any node but its own source.
      for (const { id } of nodes)
        if (id !== START && id !== branch.source) edges.push({ source: branch.source, target: id, conditional: true });
      edges.push({ source: branch.source, target: END, conditional: true });
      continue;
    }
    // As LangGraph.js: one edge per path map entry, labelled with its key when that is not the target.
    for (const [key, target] of Object.entries(branch.pathMap)) {
      const edge: Edge = { source: branch.source, target, conditional: true };
      if (key !== target) edge.label = key;
      edges.push(edge);
    }
  }
  for (const node of Object.values(builder.nodes))
    for (const end of node.options.ends ?? []) edges.push({ source: node.name, target: end, conditional: true });
  // A node reached by a plain edge and leading nowhere ends the run: drawn with an edge to END, as
  // LangGraph draws it (branch targets are left as they are).
  const sources = new Set(edges.map((edge) => edge.source));
  const sinks = new Set(
    edges.filter((e) => !e.conditional && e.target !== END && !sources.has(e.target)).map((e) => e.target),
  );
  for (const sink of [...sinks].sort()) edges.push({ source: sink, target: END, conditional: false });
  // END is drawn only when something leads to it (a graph whose branches end in nodes has none).
  if (edges.some((edge) => edge.target === END)) nodes.push({ id: END, subgraph: false });
  return { nodes, edges };
}

/** `drawing` as `getGraph()` gives it: LangChain's Graph when `@langchain/core` is loaded. */
export function publicDrawing(drawing: Drawing): GraphDrawing {
  const Graph = langchainLoaded()?.runnablesGraph?.Graph;
  if (Graph) {
    const graph = new Graph();
    const byId = new Map<string, unknown>();
    for (const { id, metadata: own } of drawing.nodes) {
      const boundary = id === START || id === END;
      const metadata = boundary ? undefined : (own ?? {});
      byId.set(id, graph.addNode({ name: id, schema: {} }, id, metadata));
    }
    for (const edge of drawing.edges)
      graph.addEdge(byId.get(edge.source), byId.get(edge.target), edge.label, edge.conditional);
    return graph;
  }
  const nodes: Record<string, DrawnNode> = {};
  for (const { id, metadata } of drawing.nodes) nodes[id] = { id, name: id, data: { name: id }, metadata };
  const edges: DrawnEdge[] = drawing.edges.map(({ source, target, conditional, label }) =>
    label === undefined ? { source, target, conditional } : { source, target, conditional, data: label },
  );
  return {
    nodes,
    edges,
    drawMermaid: () => mermaid(drawing),
    // LangChain's Graph's JSON (its node types: "schema" for START and END, "runnable" for the others).
    toJSON: () => ({
      nodes: drawing.nodes.map(({ id }) => ({
        id,
        type: id === START || id === END ? "schema" : "runnable",
        data: id === START || id === END ? {} : { name: id },
      })),
      edges,
    }),
  };
}
