/**
 * `stream(input, { encoding: "text/event-stream" })`: each chunk as a server-sent event, as
 * LangGraph.js encodes it (`event: <mode>` or `<mode>|<namespace>`, `data: <json>`), so that
 * `new Response(await graph.stream(...))` serves it. LangChain messages are written as their
 * `toDict()` data with their type; checkpoints name their checkpoint and parent as plain
 * `{ thread_id, checkpoint_ns, checkpoint_id }`; a failed run ends with an `error` event.
 */
const encoder = new TextEncoder();

function json(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, replaced) {
    const raw = this[key] as { toDict?: () => { type: string; data: object } } | null | undefined;
    if (raw !== null && typeof raw === "object" && typeof raw.toDict === "function") {
      const { type, data } = raw.toDict();
      return { ...data, type };
    }
    return replaced;
  });
}

type Config = { configurable?: Record<string, unknown> } | undefined;

function checkpointOf(config: Config) {
  const c = config?.configurable;
  if (!c?.thread_id) return null;
  return {
    thread_id: c.thread_id,
    checkpoint_ns: c.checkpoint_ns || "",
    checkpoint_id: c.checkpoint_id,
    checkpoint_map: c.checkpoint_map ?? null,
  };
}

/** The config without its private (`__`) keys and callbacks. */
function plainConfig(config: Config): Config {
  if (!config?.configurable) return config;
  const { callbacks: _callbacks, ...rest } = config as Record<string, unknown>;
  const configurable = Object.fromEntries(Object.entries(config.configurable).filter(([k]) => !k.startsWith("__")));
  return { ...rest, configurable };
}

function checkpointPayload(payload: Record<string, unknown>): Record<string, unknown> {
  const { parentConfig, ...rest } = payload as Record<string, unknown> & { config: Config; parentConfig: Config };
  const tasks = (payload.tasks as Array<Record<string, unknown>> | undefined)?.map((task) => {
    const checkpoint = checkpointOf(task.state as Config);
    if (!checkpoint) return task;
    const { state: _state, ...kept } = task;
    return { ...kept, checkpoint };
  });
  return {
    ...rest,
    checkpoint: checkpointOf(rest.config as Config),
    parent_checkpoint: checkpointOf(parentConfig),
    config: plainConfig(rest.config as Config),
    parent_config: plainConfig(parentConfig),
    tasks,
  };
}

function frame(event: string, data: unknown): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${json(data)}\n\n`);
}

/** One chunk of the run as an event; `ns` is "" for the root graph. */
export function sseFrame(ns: string, mode: string, chunk: unknown): Uint8Array {
  let data = chunk;
  if (mode === "checkpoints") data = checkpointPayload(chunk as Record<string, unknown>);
  else if (mode === "debug" && (chunk as { type?: string }).type === "checkpoint") {
    const debug = chunk as { payload: Record<string, unknown> };
    data = { ...debug, payload: checkpointPayload(debug.payload) };
  }
  return frame(ns ? `${mode}|${ns}` : mode, data);
}

/** The event that ends the stream of a run that failed. */
export function sseErrorFrame(error: unknown): Uint8Array {
  return frame(
    "error",
    error instanceof Error
      ? { error: error.name, message: error.message }
      : { error: "Error", message: JSON.stringify(error) },
  );
}
