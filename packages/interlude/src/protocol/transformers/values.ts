/** The values of one graph (not its subgraphs'), in order: `run.values`. */
import { StreamChannel } from "../channel.js";
import { hasPrefix, type Namespace, type StreamTransformer } from "../types.js";

export function createValuesTransformer(path: Namespace): StreamTransformer<{ _valuesLog: StreamChannel<unknown> }> {
  const log = StreamChannel.local<unknown>();
  return {
    init: () => ({ _valuesLog: log }),
    process(event) {
      const ns = event.params.namespace;
      if (event.method === "values" && ns.length === path.length && hasPrefix(ns, path)) log.push(event.params.data);
      return true;
    },
    finalize: () => log.close(),
    fail: (error) => log.fail(error),
  };
}
