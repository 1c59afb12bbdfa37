/**
 * LangChain's ambient config: a runnable called without a config (a chat model called as
 * `model.invoke(messages)` inside a node) inherits the one stored in LangChain's global
 * AsyncLocalStorage, so its callbacks report to the node's chain run.
 *
 * LangChain's own `runWithConfig` builds a callback manager and, unless a LangSmith tracer is
 * among the handlers, a fresh LangSmith `RunTree` with tracing disabled, only to carry the
 * config: a UUIDv7, a dotted order and a timestamp string per call, about a third of the
 * callback cost of a node (measured with the server's TTFT benchmark). Without a tracer,
 * that run tree is a placeholder nobody posts, so here every store is a shallow clone of one
 * such placeholder (as LangChain's `setContextVariable` clones a run tree) with its own config,
 * context variables and child list: LangSmith's `traceable` sees a run tree with tracing
 * disabled, as it would under LangChain. With a tracer, the call goes to LangChain, whose
 * tracer supplies the real run tree.
 */

/** LangChain's keys in the stored run tree: the config a runnable inherits, and `setContextVariable`'s values. */
const CHILD_CONFIG = Symbol.for("lc:child_config");
const CONTEXT_VARIABLES = Symbol.for("lc:context_variables");
/** The `name` of LangChain's LangSmith tracer handler. */
const TRACER = "langchain_tracer";

interface Storage {
  getStore(): Record<PropertyKey, unknown> | undefined;
  run<T>(store: unknown, body: () => T): T;
}

interface Provider {
  getInstance(): Storage;
  runWithConfig<T>(config: unknown, body: () => T): T;
}

export type RunWithConfig = <T>(config: Record<string, unknown>, body: () => T) => T;

/** `runWithConfig` for LangChain's async-local-storage provider (`AsyncLocalStorageProviderSingleton`). */
export function ambientRunner(provider: Provider): RunWithConfig {
  let placeholder: object | undefined;
  return (config, body) => {
    if (mayTrace(config.callbacks)) return provider.runWithConfig(config, body);
    const storage = provider.getInstance();
    // LangChain's own placeholder, made once outside any run (so it holds no context variables).
    placeholder ??= storage.run(undefined, () => provider.runWithConfig({}, () => storage.getStore())) ?? {};
    const store = Object.assign(Object.create(Object.getPrototypeOf(placeholder)), placeholder);
    store.extra = { [CHILD_CONFIG]: config };
    store.child_runs = [];
    const variables = storage.getStore()?.[CONTEXT_VARIABLES];
    if (variables !== undefined) store[CONTEXT_VARIABLES] = variables;
    return storage.run(store, body);
  };
}

/**
 * True unless `callbacks` is a callback manager without LangChain's tracer. A manager made by
 * `CallbackManager.configure` already holds the tracer when tracing is enabled by environment
 * or by a configure hook; anything else (a handler list, nothing) is left to LangChain.
 */
function mayTrace(callbacks: unknown): boolean {
  const handlers = (callbacks as { handlers?: unknown } | undefined)?.handlers;
  if (!Array.isArray(handlers)) return true;
  for (const handler of handlers) if ((handler as { name?: unknown })?.name === TRACER) return true;
  return false;
}
