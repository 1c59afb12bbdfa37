/**
 * A node's writes in the low-level API (`Channel.writeTo`): a step of the node's chain that
 * writes what it receives (or a fixed value, or a mapped one) to channels and passes its input
 * on. The writes join the running task's, applied with the step's other writes.
 */
import type { Write } from "../algo/writes.js";
import { TASKS } from "../constants.js";
import { OutsideNodeError } from "../errors/store.js";
import { isRunnable, type RunnableLike } from "../graph/runnable.js";
import { isSend } from "../primitives/send.js";
import { currentTask } from "../runner/scope.js";

/** Stands for the value the write receives (`Channel.writeTo(["out"])` writes its input to `out`). */
export const PASSTHROUGH = Symbol.for("interlude.passthrough");

/** A mapper turns the received value into the value written. */
type WriteMapper = RunnableLike | ((value: any, config?: any) => unknown);

export interface ChannelWriteEntry {
  channel: string;
  /** `PASSTHROUGH`, or a value written as is. */
  value: unknown;
  /** Nothing is written when the (mapped) value is undefined. */
  skipNone?: boolean;
  mapper?: WriteMapper;
}

/** A Send among the entries: a task of its node in the next step. */
export type WriteTarget = ChannelWriteEntry | { node: string; args: unknown; lg_name: "Send" };

function mapped(mapper: WriteMapper, value: unknown, config: unknown): unknown {
  return isRunnable(mapper) ? mapper.invoke(value, config) : mapper(value, config);
}

export class ChannelWrite {
  readonly lg_name = "ChannelWrite";
  constructor(
    readonly writes: readonly WriteTarget[],
    readonly tags: readonly string[] = [],
  ) {}

  static isWriter(value: unknown): value is ChannelWrite {
    return value instanceof ChannelWrite;
  }

  /** The channels this writer may write, known before it runs (what a drawing and validation use). */
  get channels(): string[] {
    return this.writes.flatMap((entry) => (isSend(entry) ? [] : [(entry as ChannelWriteEntry).channel]));
  }

  /**
   * Writes `input` as its entries say, into the running task's writes, and passes it on.
   * Synchronous unless a mapper returns a promise (a step then saves its turns).
   */
  invoke(input: unknown, config?: unknown): unknown {
    const scope = currentTask();
    if (!scope) return Promise.reject(new OutsideNodeError("A ChannelWrite (Channel.writeTo)"));
    const push = (writes: Write[]) => {
      ((scope.root ?? scope).pushed ??= []).push(...writes);
      return input;
    };
    const writes = this.writesFor(input, config);
    return writes instanceof Promise ? writes.then(push) : push(writes);
  }

  /** The writes of `input` (mappers called), without making them; in entry order. */
  writesFor(input: unknown, config?: unknown): Write[] | Promise<Write[]> {
    const writes: Array<Write | Promise<Write | undefined>> = [];
    let waiting = false;
    for (const entry of this.writes) {
      if (isSend(entry)) {
        writes.push([TASKS, { node: entry.node, args: entry.args }]);
        continue;
      }
      const { channel, value, skipNone, mapper } = entry as ChannelWriteEntry;
      const given = value === PASSTHROUGH ? input : value;
      const written = mapper ? mapped(mapper, given, config) : given;
      // As LangGraph.js: a mapper giving undefined writes nothing (null is a value).
      if (written instanceof Promise) {
        waiting = true;
        writes.push(written.then((v): Write | undefined => (skipNone && v === undefined ? undefined : [channel, v])));
      } else if (!(skipNone && written === undefined)) writes.push([channel, written]);
    }
    if (!waiting) return writes as Write[];
    return Promise.all(writes).then((all) => all.filter((write): write is Write => write !== undefined));
  }

  /** As a LangChain Runnable's `batch` (a `RunnableEach` over a writer calls it). */
  batch(inputs: readonly unknown[], config?: unknown): Promise<unknown[]> {
    const configs = Array.isArray(config) ? config : inputs.map(() => config);
    return Promise.all(inputs.map((input, i) => this.invoke(input, configs[i])));
  }
}
