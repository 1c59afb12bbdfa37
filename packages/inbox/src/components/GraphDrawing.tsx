/** The graph as SVG (laid out by dagre), with the nodes the thread is paused at highlighted. */
import { useMemo } from "preact/hooks";
import type { AssistantGraph } from "../api/types";
import { layoutGraph, type PlacedEdge } from "../domain/graph-layout";

interface Props {
  graph: AssistantGraph;
  paused: string[];
  title: string;
}

function edgePath(e: PlacedEdge): string {
  const [first, ...rest] = e.points;
  if (!first) return "";
  if (rest.length === 1) return `M${first.x},${first.y} L${rest[0]!.x},${rest[0]!.y}`;
  // A smooth curve through dagre's control points: quadratic segments between midpoints.
  let d = `M${first.x},${first.y}`;
  for (let i = 0; i < rest.length - 1; i++) {
    const p = rest[i]!;
    const q = rest[i + 1]!;
    d += ` Q${p.x},${p.y} ${(p.x + q.x) / 2},${(p.y + q.y) / 2}`;
  }
  const last = rest[rest.length - 1]!;
  return `${d} L${last.x},${last.y}`;
}

export function GraphDrawing({ graph, paused, title }: Props) {
  const layout = useMemo(() => layoutGraph(graph), [graph]);
  const pausedSet = new Set(paused);
  const label = `${title}: ${layout.nodes
    .filter((n) => !n.terminal)
    .map((n) => n.label)
    .join(", ")}${paused.length ? `; paused at ${paused.join(", ")}` : ""}`;
  return (
    <svg
      class="graph"
      role="img"
      aria-label={label}
      viewBox={`0 0 ${layout.width} ${layout.height}`}
      width={layout.width}
      height={layout.height}
    >
      <defs>
        <marker
          id="arrow"
          viewBox="0 0 10 10"
          refX="9"
          refY="5"
          markerWidth="7"
          markerHeight="7"
          orient="auto-start-reverse"
        >
          <path d="M0,0 L10,5 L0,10 z" class="arrowhead" />
        </marker>
      </defs>
      {layout.edges.map((e, i) => (
        <g key={i} class={e.conditional ? "edge conditional" : "edge"}>
          <path d={edgePath(e)} marker-end="url(#arrow)" />
        </g>
      ))}
      {layout.nodes.map((n) => {
        const isPaused = pausedSet.has(n.id);
        return (
          <g
            key={n.id}
            class={`node${n.terminal ? " terminal" : ""}${isPaused ? " paused" : ""}`}
            data-node={n.id}
            aria-current={isPaused ? "step" : undefined}
          >
            <rect
              x={n.x - n.width / 2}
              y={n.y - n.height / 2}
              width={n.width}
              height={n.height}
              rx={n.terminal ? n.height / 2 : 8}
            />
            <text x={n.x} y={n.y} dominant-baseline="central" text-anchor="middle">
              {n.label}
            </text>
            {isPaused && <title>{`${n.label}: paused here`}</title>}
          </g>
        );
      })}
    </svg>
  );
}
