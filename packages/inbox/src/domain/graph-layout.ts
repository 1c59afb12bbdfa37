/** Positions for the graph's nodes and edges (dagre), ready to draw as SVG. */
import dagre from "@dagrejs/dagre";
import type { AssistantGraph } from "../api/types";

interface PlacedNode {
  id: string;
  label: string;
  x: number;
  y: number;
  width: number;
  height: number;
  terminal: boolean;
}

export interface PlacedEdge {
  source: string;
  target: string;
  conditional: boolean;
  label?: string;
  points: Array<{ x: number; y: number }>;
}

export interface GraphLayout {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

const TERMINALS = new Set(["__start__", "__end__"]);

export function layoutGraph(graph: AssistantGraph): GraphLayout {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: "TB", nodesep: 28, ranksep: 44, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of graph.nodes) {
    const id = String(n.id);
    const label = id === "__start__" ? "start" : id === "__end__" ? "end" : (n.name ?? id);
    const terminal = TERMINALS.has(id);
    g.setNode(id, {
      label,
      width: terminal ? 64 : Math.max(90, label.length * 8 + 28),
      height: terminal ? 28 : 36,
      terminal,
    });
  }
  graph.edges.forEach((e, i) => {
    if (g.hasNode(e.source) && g.hasNode(e.target))
      g.setEdge(e.source, e.target, { label: e.data, conditional: !!e.conditional }, `e${i}`);
  });
  dagre.layout(g);
  const nodes = g.nodes().map((id): PlacedNode => {
    const n = g.node(id) as unknown as {
      label: string;
      terminal: boolean;
      x: number;
      y: number;
      width: number;
      height: number;
    };
    return { id, label: n.label, x: n.x, y: n.y, width: n.width, height: n.height, terminal: n.terminal };
  });
  const edges = g.edges().map((e): PlacedEdge => {
    const d = g.edge(e) as { points: Array<{ x: number; y: number }>; label?: string; conditional: boolean };
    const edge: PlacedEdge = { source: e.v, target: e.w, conditional: d.conditional, points: d.points ?? [] };
    if (d.label) edge.label = d.label;
    return edge;
  });
  const label = g.graph() as { width?: number; height?: number };
  return { width: label.width ?? 0, height: label.height ?? 0, nodes, edges };
}
