/**
 * An append-only log that any number of readers iterate from any position, each at its own
 * pace: the run's events, and the items of a projection. A channel made with a name
 * (`StreamChannel.remote(name)`) in a transformer's projection also sends each item into the
 * run's event stream, as method `custom:<name>`.
 */

/** LangGraph's brand: a channel made by either library is recognised by both. */
const BRAND = Symbol.for("langgraph.stream_channel");

export interface EventStreamOptions<T> {
  startAt?: number;
  /** The SSE `event:` name; the channel's name by default, none if it has none. */
  event?: string;
  serialize?: (item: T) => string;
}

export class StreamChannel<T = unknown> implements AsyncIterable<T> {
  readonly [BRAND] = true;
  readonly channelName: string | undefined;
  readonly #items: T[] = [];
  #waiters: Array<() => void> = [];
  #done = false;
  #error: unknown;
  #failed = false;
  #onPush?: (item: T) => void;

  constructor(name?: string) {
    this.channelName = name;
  }

  /** A log read in this process only. */
  static local<T = unknown>(): StreamChannel<T> {
    return new StreamChannel<T>();
  }

  /** A log whose items also go out in the run's event stream, as `custom:<name>` events. */
  static remote<T = unknown>(name: string): StreamChannel<T> {
    return new StreamChannel<T>(name);
  }

  static isInstance(value: unknown): value is StreamChannel {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  push(item: T): void {
    this.#items.push(item);
    this.#wake();
    this.#onPush?.(item);
  }

  iterate(startAt = 0): AsyncIterator<T> {
    let cursor = startAt;
    return {
      next: async () => {
        for (;;) {
          if (cursor < this.#items.length) return { value: this.#items[cursor++]!, done: false };
          if (this.#done) {
            if (this.#failed) throw this.#error;
            return { value: undefined, done: true };
          }
          await new Promise<void>((resolve) => this.#waiters.push(resolve));
        }
      },
    };
  }

  toAsyncIterable(startAt = 0): AsyncIterable<T> {
    return { [Symbol.asyncIterator]: () => this.iterate(startAt) };
  }

  /** The items as server-sent events (`event: <name>` and one `data:` line per line of JSON). */
  toEventStream(options: EventStreamOptions<T> = {}): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    const iterator = this.iterate(options.startAt);
    const event = options.event ?? this.channelName;
    const serialize = options.serialize ?? ((item: T) => JSON.stringify(item) ?? "null");
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await iterator.next();
          if (next.done) return controller.close();
          const lines = event != null ? [`event: ${event}`] : [];
          for (const line of serialize(next.value).split(/\r\n|\r|\n/)) lines.push(`data: ${line}`);
          controller.enqueue(encoder.encode(`${lines.join("\n")}\n\n`));
        } catch (error) {
          controller.error(error);
        }
      },
      async cancel() {
        await iterator.return?.();
      },
    });
  }

  get(index: number): T {
    if (index < 0 || index >= this.#items.length)
      throw new RangeError(`StreamChannel index ${index} out of bounds (size=${this.#items.length})`);
    return this.#items[index]!;
  }

  get size(): number {
    return this.#items.length;
  }

  get done(): boolean {
    return this.#done;
  }

  close(): void {
    this.#done = true;
    this.#wake();
  }

  fail(error: unknown): void {
    this.#error = error;
    this.#failed = true;
    this.#done = true;
    this.#wake();
  }

  /** Set by the run stream for a named channel: where its pushes also go. */
  _wire(send: (item: T) => void): void {
    this.#onPush = send;
  }

  _close(): void {
    this.close();
  }

  _fail(error: unknown): void {
    this.fail(error);
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return this.iterate();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}

/** The items of `channel` from `startAt` that `keep` takes, each as `map` makes it: a reader's view of a shared log. */
export function selectItems<T, R = T>(
  channel: StreamChannel<T>,
  startAt: number,
  keep: (item: T) => boolean,
  map: (item: T) => R = (item) => item as unknown as R,
): AsyncIterator<R> {
  const items = channel.iterate(startAt);
  return {
    async next() {
      for (;;) {
        const result = await items.next();
        if (result.done) return { value: undefined, done: true };
        if (keep(result.value)) return { value: map(result.value), done: false };
      }
    },
  };
}
