/** `getGraph()`: a compiled graph's nodes and edges, for drawing (Mermaid, as LangGraph draws it). */
import { END, START } from "../constants.js";
import type { GraphDeclaration } from "./declaration.js";

export interface GraphDrawing {
  nodes: Array<{ id: string; subgraph: boolean }>;
  edges: Array<{ source: string; target: string; conditional: boolean }>;
  /** Mermaid flowchart source, as LangGraph's `getGraph().drawMermaid()`. */
  drawMermaid(): string;
}

function mermaid(nodes: GraphDrawing["nodes"], edges: GraphDrawing["edges"]): string {
  const id = (name: string) => name.replace(/[^A-Za-z0-9_]/g, "_");
  const lines = ["graph TD;"];
  for (const node of nodes)
    lines.push(`\t${id(node.id)}${node.id === START || node.id === END ? `([${node.id}])` : `[${node.id}]`};`);
  for (const edge of edges) lines.push(`\t${id(edge.source)} ${edge.conditional ? "-.->" : "-->"} ${id(edge.target)};`);
  return lines.join("\n");
}

export function drawingOf(builder: GraphDeclaration): GraphDrawing {
  const nodes = [
    { id: START, subgraph: false },
    ...[...builder.nodes.values()].map((n) => ({ id: n.name, subgraph: typeof n.action !== "function" })),
    { id: END, subgraph: false },
  ];
  const edges: GraphDrawing["edges"] = [];
  for (const { sources, target } of builder.edges)
    for (const source of sources) edges.push({ source, target, conditional: false });
  for (const branch of builder.branches) {
    const targets = branch.pathMap ? [...new Set(Object.values(branch.pathMap))] : [...builder.nodes.keys(), END];
    for (const target of targets) edges.push({ source: branch.source, target, conditional: true });
  }
  for (const node of builder.nodes.values())
    for (const end of node.options.ends ?? []) edges.push({ source: node.name, target: end, conditional: true });
  // A node reached by a plain edge and leading nowhere ends the run: drawn with an edge to END, as
  // LangGraph draws it (branch targets are left as they are).
  const sources = new Set(edges.map((edge) => edge.source));
  const sinks = new Set(
    edges.filter((e) => !e.conditional && e.target !== END && !sources.has(e.target)).map((e) => e.target),
  );
  for (const sink of [...sinks].sort()) edges.push({ source: sink, target: END, conditional: false });
  return { nodes, edges, drawMermaid: () => mermaid(nodes, edges) };
}
