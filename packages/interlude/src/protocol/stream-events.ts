/**
 * `graph.streamEvents(input, { version: "v3" })`: the graph streamed in every mode the protocol
 * carries, from every level, into a run stream (run-stream.ts) with the graph's and the call's
 * transformers. The run starts at once; its errors reach the stream (`output` rejects, reading
 * throws), not the call. `run.abort()` cancels the run.
 */
import { UnsupportedFeatureError } from "../errors/unsupported.js";
import { forwardAbort } from "../run/abandon.js";
import { asGraphStream, type GraphStream, type StreamMode } from "../run/emitter.js";
import { STREAM_EVENTS_V3_MODES } from "./convert.js";
import { createGraphRunStream, type GraphRunStream } from "./run-stream.js";
import { protocolEventFrames } from "./sse.js";
import type { StreamTransformer } from "./types.js";

/** Marks a `stream()` call made for a v3 run: protocol messages, checkpoint envelopes, node namespaces. */
export const PROTOCOL_STREAM = Symbol("interlude.protocolStream");

export interface StreamEventsV3Options {
  version: "v3";
  /** Transformer factories for this run, after the graph's own (`compile({ transformers })`). */
  transformers?: ReadonlyArray<() => StreamTransformer<any>>;
  encoding?: "text/event-stream";
  signal?: AbortSignal;
  [key: string]: unknown;
}

interface StreamingGraph {
  readonly streamTransformers: ReadonlyArray<() => StreamTransformer<any>>;
  stream(input: unknown, config: any): Promise<AsyncIterable<unknown>>;
}

export function streamProtocolEvents(
  graph: StreamingGraph,
  input: unknown,
  options: StreamEventsV3Options,
): GraphRunStream<any, any> | GraphStream<Uint8Array> {
  const { version: _version, encoding, transformers = [], subgraphs: _subgraphs, ...rest } = options;
  if (encoding !== undefined && encoding !== "text/event-stream")
    throw new UnsupportedFeatureError(
      `encoding ${JSON.stringify(encoding)}`,
      'streamEvents v3 encodes as "text/event-stream" only; leave encoding out to get the run stream.',
    );
  const abort = new AbortController();
  const release = forwardAbort(rest.signal, abort);
  const streaming = graph.stream(input, {
    ...rest,
    streamMode: [...STREAM_EVENTS_V3_MODES] as StreamMode[],
    subgraphs: true,
    signal: abort.signal,
    [PROTOCOL_STREAM]: true,
  });
  const source = {
    async *[Symbol.asyncIterator]() {
      try {
        yield* await streaming;
      } finally {
        release();
      }
    },
  };
  const run = createGraphRunStream(source, [...graph.streamTransformers, ...transformers], { abortController: abort });
  if (encoding === undefined) return run;
  return asGraphStream(protocolEventFrames(run, () => run.abort(new Error("The stream's reader stopped reading."))));
}
