/**
 * Stream plumbing: a run pushes chunks, the caller pulls them with `for await`. The run does
 * not wait for the reader; chunks queue until read.
 */
import {
  ReadableStream,
  type ReadableStreamDefaultReader,
  type ReadableWritablePair,
  type StreamPipeOptions,
  type WritableStream,
} from "node:stream/web";
import { everyName } from "../errors/options.js";

export type StreamMode = "values" | "updates" | "custom" | "checkpoints" | "tasks" | "debug" | "messages" | "tools";

/** Every stream mode. */
export const STREAM_MODES = everyName<StreamMode>({
  values: 1,
  updates: 1,
  custom: 1,
  checkpoints: 1,
  tasks: 1,
  debug: 1,
  messages: 1,
  tools: 1,
});

export interface Emitter {
  readonly modes: ReadonlySet<StreamMode>;
  readonly subgraphs: boolean;
  /**
   * A `checkpoints` chunk of the checkpoint's envelope (`{ id, parent_id, step, source }`) goes
   * before each `values` chunk (streamEvents v3), whatever the modes.
   */
  readonly envelopes?: boolean;
  /** `ns` is empty for the root graph. */
  emit(ns: string, mode: StreamMode, chunk: unknown): void;
}

/**
 * What `stream()` gives: chunks to read with `for await`, and the same as a web ReadableStream
 * (LangGraph's stream is one). Leaving the loop early, or `cancel()`, cancels the run.
 */
export interface GraphStream<T> extends AsyncIterableIterator<T> {
  cancel(reason?: unknown): Promise<void>;
  readonly locked: boolean;
  getReader(): ReadableStreamDefaultReader<T>;
  pipeTo(destination: WritableStream<T>, options?: StreamPipeOptions): Promise<void>;
  pipeThrough<O>(transform: ReadableWritablePair<O, T>, options?: StreamPipeOptions): ReadableStream<O>;
  tee(): [ReadableStream<T>, ReadableStream<T>];
}

/** `chunks` (a run's queue, or a generator that maps another stream's) as a GraphStream; its ReadableStream is made on first use. */
export function asGraphStream<T>(chunks: AsyncIterableIterator<T>): GraphStream<T> {
  let readable: ReadableStream<T> | undefined;
  const stream = () => (readable ??= ReadableStream.from(chunks) as ReadableStream<T>);
  // `locked` is a getter: Object.assign would copy its value once.
  Object.defineProperty(chunks, "locked", { get: () => readable?.locked ?? false });
  return Object.assign(chunks as AsyncIterableIterator<T> & { readonly locked: boolean }, {
    cancel: async (reason?: unknown) => {
      if (readable) await readable.cancel(reason);
      else await chunks.return?.(reason);
    },
    getReader: () => stream().getReader(),
    pipeTo: (destination: WritableStream<T>, options?: StreamPipeOptions) => stream().pipeTo(destination, options),
    pipeThrough: <O>(transform: ReadableWritablePair<O, T>, options?: StreamPipeOptions) =>
      stream().pipeThrough(transform, options),
    tee: () => stream().tee(),
  });
}

const DONE: IteratorReturnResult<never> = { value: undefined as never, done: true };

export class ChunkQueue<T> implements AsyncIterableIterator<T> {
  private readonly buffer: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private failWaiting: ((error: unknown) => void) | undefined;
  private closed = false;
  private error: unknown;
  private failed = false;

  push(value: T): void {
    if (this.closed) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = this.failWaiting = undefined;
      resolve({ value, done: false });
    } else this.buffer.push(value);
  }
  close(error?: unknown): void {
    if (this.closed) return;
    this.closed = true;
    if (error !== undefined) {
      this.failed = true;
      this.error = error;
    }
    if (this.waiting) {
      const resolve = this.waiting;
      const reject = this.failWaiting!;
      this.waiting = this.failWaiting = undefined;
      if (this.failed) reject(this.error);
      else resolve({ value: undefined as never, done: true });
    }
  }
  next(): Promise<IteratorResult<T>> {
    if (this.buffer.length) return Promise.resolve({ value: this.buffer.shift()!, done: false });
    if (this.closed)
      return this.failed ? Promise.reject(this.error) : Promise.resolve({ value: undefined as never, done: true });
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failWaiting = reject;
    });
  }
  /**
   * Told when the reader stops before the end (`break`, `cancel()`): the run it reads is
   * cancelled. What it returns settles once that run has stopped.
   */
  onCancel?: (reason?: unknown) => Promise<void> | void;

  /**
   * The reader stops before the end: `for await` left early, or `cancel()` (asGraphStream). What
   * is queued is dropped and the run is cancelled; this settles once the run has stopped, so the
   * thread is free for the reader's next call when its loop is left.
   */
  return(reason?: unknown): Promise<IteratorResult<T>> {
    const stopping = !this.closed;
    this.close();
    this.buffer.length = 0;
    const stopped = stopping ? this.onCancel?.(reason) : undefined;
    return stopped ? stopped.then(() => DONE) : Promise.resolve(DONE);
  }
  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}

/** Shapes chunks as LangGraph does: `chunk`, `[mode, chunk]`, `[ns, chunk]` or `[ns, mode, chunk]`. */
export function queueEmitter(
  queue: ChunkQueue<unknown>,
  modes: readonly StreamMode[],
  multiMode: boolean,
  subgraphs: boolean,
  /** Pushes what this makes of each chunk instead of the chunk (an encoding, run/sse.ts). */
  encode?: (ns: string, mode: StreamMode, chunk: unknown) => unknown,
  envelopes = false,
): Emitter {
  const set = new Set(modes);
  return {
    modes: set,
    subgraphs,
    envelopes,
    emit(ns, mode, chunk) {
      if (!set.has(mode) && !(envelopes && mode === "checkpoints")) return;
      // As LangGraph.js: a subgraph's `custom` chunks reach a stream without subgraphs too.
      if (ns && !subgraphs && mode !== "custom") return;
      if (encode) return queue.push(encode(ns, mode, chunk));
      const namespace = ns ? ns.split("|") : [];
      if (subgraphs) queue.push(multiMode ? [namespace, mode, chunk] : [namespace, chunk]);
      else queue.push(multiMode ? [mode, chunk] : chunk);
    },
  };
}
