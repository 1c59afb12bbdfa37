/**
 * A compiled graph as LangChain sees a Runnable: marked `lc_runnable`, so LCEL takes it as a step
 * (`prompt.pipe(graph)`, `RunnableSequence.from([..., graph])`), with `transform` for streamed
 * sequences. Its own `pipe`, `withRetry`, `asTool`, ... are LangChain's, applied to the graph;
 * they build LangChain objects at once, so `@langchain/core` must be loaded by then (graphs load
 * it lazily, at their first run that needs it; `await loadLangChain()` loads it up front).
 */
import { LangChainNotReadyError, langchainLoaded } from "../langchain/load.js";

/** LangChain's own `Runnable.prototype[method]`, applied to `graph`. */
export function viaLangChain(graph: object, method: string, args: unknown[]): any {
  const lc = langchainLoaded();
  if (!lc) throw new LangChainNotReadyError(`graph.${method}() (it builds a LangChain Runnable)`);
  return (lc.runnables.Runnable.prototype[method] as (...a: unknown[]) => unknown).apply(graph, args);
}

/** The input chunks a streamed sequence hands its step, as one input: objects merged, strings joined, else the last. */
async function gathered(chunks: AsyncIterable<unknown>): Promise<unknown> {
  let input: unknown;
  let first = true;
  for await (const chunk of chunks) {
    if (first) input = chunk;
    else if (typeof input === "string" && typeof chunk === "string") input += chunk;
    else if (isPlainObject(input) && isPlainObject(chunk)) input = { ...input, ...chunk };
    else input = chunk;
    first = false;
  }
  return input;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** `transform` of a Runnable: the whole input read, then the graph's stream. */
export async function* transformed(
  stream: (input: unknown, config?: any) => Promise<AsyncIterable<unknown>>,
  chunks: AsyncIterable<unknown>,
  config?: any,
): AsyncGenerator<unknown> {
  yield* await stream(await gathered(chunks), config);
}
