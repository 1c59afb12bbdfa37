/**
 * Runnables as nodes and conditional-edge paths: anything with `invoke(input, config)` (a
 * LangChain chat model, `RunnableLambda`, `ToolNode`, a compiled graph of another library)
 * is called with the node's input and config, so LangChain callbacks and context reach it.
 */
export interface RunnableLike<Input = any, Output = unknown> {
  invoke(input: Input, config?: any): Output | Promise<Output>;
}

export function isRunnable(value: unknown): value is RunnableLike {
  return typeof value === "object" && value !== null && typeof (value as RunnableLike).invoke === "function";
}

export function asRunnable(runnable: RunnableLike): (input: unknown, config: unknown) => unknown {
  return (input, config) => runnable.invoke(input, config);
}
