/**
 * A graph's `stream()`: the run started in the background, its chunks queued for the reader in
 * the modes asked for (as objects, or as server-sent events), the run cancelled when the reader
 * stops reading.
 */
import type { GraphInternals } from "../algo/spec.js";
import { withStreamHandlers } from "../callbacks/stream-handlers.js";
import { shallowCopy } from "../checkpoint/plain-copy.js";
import type { RunnableConfig } from "../checkpoint/types.js";
import { InvalidRunOptionError } from "../errors/graph.js";
import { UnsupportedFeatureError } from "../errors/unsupported.js";
import { PROTOCOL_STREAM } from "../protocol/stream-events.js";
import { currentTask } from "../runner/scope.js";
import { forwardAbort } from "./abandon.js";
import { asGraphStream, ChunkQueue, type GraphStream, queueEmitter, STREAM_MODES, type StreamMode } from "./emitter.js";
import { NestedStream, withNodeConfig } from "./nested-run.js";
import { configWithoutOptions, type StreamOptions } from "./options.js";
import { GraphRun } from "./run.js";
import { sseErrorFrame, sseFrame } from "./sse.js";

export async function streamRun(
  graph: GraphInternals,
  input: unknown,
  config: RunnableConfig & StreamOptions,
): Promise<GraphStream<unknown>> {
  const modes = modesOf(config.streamMode);
  const queue = new ChunkQueue<unknown>();
  const encoding = encodingOf(config.encoding);
  const protocol = (config as Record<symbol, unknown>)[PROTOCOL_STREAM] === true;
  const queued = queueEmitter(
    queue,
    modes,
    Array.isArray(config.streamMode),
    config.subgraphs === true,
    encoding && sseFrame,
    protocol,
  );
  const emitter = currentTask() && !protocol ? new NestedStream(queued) : queued;
  const base = await withStreamHandlers(withNodeConfig(configWithoutOptions(config)), modes, emitter, protocol);
  const stop = new AbortController();
  const release = forwardAbort(config.signal, stop);
  const options = shallowCopy(config) as StreamOptions;
  options.signal = stop.signal;
  const ended = new GraphRun(graph, input, base, options, emitter)
    .execute()
    .then(
      () => queue.close(),
      // Encoded, a failure is the stream's last event, as LangGraph.js sends it.
      (error) => (encoding ? (queue.push(sseErrorFrame(error)), queue.close()) : queue.close(error)),
    )
    .finally(release);
  // As LangGraph: a reader that stops early (`break`, `cancel()`) cancels the run. Unlike it,
  // leaving the loop waits for the run to stop (its nodes, within abortGraceMs) and release the
  // thread: the reader's next call on the thread is not refused as busy, nor raced by this run.
  queue.onCancel = (reason) => {
    stop.abort(reason ?? new Error("The stream's reader stopped reading."));
    return ended;
  };
  return asGraphStream(queue);
}

/**
 * LangGraph.js 1.7 streams "updates" when no mode is given (whatever its docs say), and "values"
 * for a graph streamed inside a node.
 */
export function defaultStreamMode(): "updates" | "values" {
  return currentTask() ? "values" : "updates";
}

/** The modes asked for; one that is not a stream mode (a misspelling) is refused, not streamed as nothing. */
function modesOf(mode: StreamOptions["streamMode"]): StreamMode[] {
  const modes = mode === undefined ? [defaultStreamMode()] : Array.isArray(mode) ? mode : [mode];
  for (const each of modes)
    if (!STREAM_MODES.includes(each)) throw new InvalidRunOptionError("streamMode", each, STREAM_MODES);
  return modes;
}

/** The stream's `encoding`: none, or server-sent events; anything else is refused. */
function encodingOf(encoding: unknown): "text/event-stream" | undefined {
  if (encoding === undefined || encoding === null) return undefined;
  if (encoding === "text/event-stream") return encoding;
  throw new UnsupportedFeatureError(
    `encoding ${JSON.stringify(encoding)}`,
    'The only stream encoding is "text/event-stream"; leave encoding out to get the chunks as objects.',
  );
}
