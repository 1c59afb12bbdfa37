/**
 * Subgraph discovery: the first event from below a graph's direct child namespace makes a
 * stream for that child (`run.subgraphs`), which reads the run's events from that point on.
 */
import { type StreamChannel, selectItems } from "../channel.js";
import type { Discovery, SettledStream, StreamMux } from "../mux.js";
import { hasPrefix, type Namespace, type NativeStreamTransformer, nsKey } from "../types.js";

/** The streams of `path`'s direct children, from the discovery log. */
export function filterSubgraphHandles<S>(
  log: StreamChannel<Discovery<S>>,
  path: Namespace,
  startAt = 0,
): AsyncIterable<S> {
  const depth = path.length + 1;
  const child = ({ ns }: Discovery<S>) => ns.length === depth && hasPrefix(ns, path);
  return { [Symbol.asyncIterator]: () => selectItems(log, startAt, child, (discovery) => discovery.stream) };
}

export interface SubgraphDiscoveryTransformerOptions<S> {
  /** Makes a child's stream, which reads discoveries and events from these positions. */
  createStream(path: Namespace, discoveryStart: number, eventStart: number): S & SettledStream;
}

export interface SubgraphDiscoveryProjection<S> {
  _discoveries: StreamChannel<Discovery>;
  subgraphs: AsyncIterable<S>;
}

export function createSubgraphDiscoveryTransformer<S>(
  mux: StreamMux,
  { createStream }: SubgraphDiscoveryTransformerOptions<S>,
): NativeStreamTransformer<SubgraphDiscoveryProjection<S>> {
  const seen = new Set<string>();
  return {
    __native: true,
    init: () => ({
      _discoveries: mux._discoveries,
      subgraphs: filterSubgraphHandles(mux._discoveries as StreamChannel<Discovery<S>>, [], 0),
    }),
    process(event) {
      const ns = event.params.namespace;
      if (ns.length === 0) return true;
      const top = ns.slice(0, 1);
      const key = nsKey(top);
      if (seen.has(key)) return true;
      seen.add(key);
      const stream = createStream(top, mux._discoveries.size, mux._events.size);
      mux.register(top, stream);
      mux._discoveries.push({ ns: top, stream });
      return true;
    },
  };
}
