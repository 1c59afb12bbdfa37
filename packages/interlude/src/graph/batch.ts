import { mapWithLimit } from "../runner/limit.js";

/** A LangChain Runnable's `batch` for a compiled graph: many inputs, a bounded number at once. */
export interface BatchOptions {
  /** A failed run gives its error in its place instead of failing the batch. */
  returnExceptions?: boolean;
  /** Runs at once (also read from the config's `maxConcurrency`); default: all. */
  maxConcurrency?: number;
}

/**
 * Runs `invoke` on each input, at most `maxConcurrency` at once; `options` is one config for
 * all inputs or one per input. Results are in the inputs' order.
 */
export async function inBatch<I, O, C extends object>(
  invoke: (input: I, config: C) => Promise<O>,
  inputs: ReadonlyArray<I>,
  options: C | readonly C[] | undefined,
  batchOptions: BatchOptions = {},
): Promise<Array<O | Error>> {
  const configOf = (i: number): C => (Array.isArray(options) ? (options[i] ?? {}) : (options ?? {})) as C;
  const limit = batchOptions.maxConcurrency ?? (configOf(0) as { maxConcurrency?: number }).maxConcurrency;
  return mapWithLimit(inputs, limit ?? inputs.length, async (input, i) => {
    try {
      return await invoke(input, configOf(i));
    } catch (error) {
      if (!batchOptions.returnExceptions) throw error;
      return error instanceof Error ? error : new Error(String(error));
    }
  });
}
