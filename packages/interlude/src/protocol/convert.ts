/**
 * A streamed chunk `[namespace, mode, payload]` as protocol events (pure). Tool events and
 * updates are reshaped into the protocol's records; a message chunk carries its node and run id.
 */
import type { Namespace, ProtocolEvent } from "./types.js";

/**
 * The stream modes a v3 run streams. Not `debug` (it re-wraps checkpoints and tasks) nor the
 * full `checkpoints` mode: a v3 run gets a small checkpoint envelope before each `values` event.
 */
export const STREAM_EVENTS_V3_MODES = ["values", "updates", "messages", "tools", "custom", "tasks"] as const;

/** The `{ id, parent_id?, step, source }` a v3 run streams before each `values` event. */
export interface CheckpointEnvelope {
  id: string;
  parent_id?: string;
  step: number;
  source: string;
}

/** A checkpoint envelope, as opposed to the full payload of stream mode `checkpoints`. */
export function isCheckpointEnvelope(payload: unknown): payload is CheckpointEnvelope {
  if (payload === null || typeof payload !== "object") return false;
  const p = payload as Record<string, unknown>;
  return (
    typeof p.id === "string" && ("source" in p || typeof p.step === "number") && !("values" in p) && !("config" in p)
  );
}

export interface ConvertToProtocolEventOptions {
  namespace: Namespace;
  mode: string;
  payload: unknown;
  seq: number;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `[message, metadata]` as the message with its run id, and the node that made it. */
function messageData(payload: unknown): { data: unknown; node?: string } {
  if (!Array.isArray(payload) || payload.length !== 2) return { data: payload };
  const [data, metadata] = payload as [unknown, unknown];
  if (metadata === null || typeof metadata !== "object") return { data: payload };
  const { langgraph_node: node, run_id: runId } = metadata as Record<string, unknown>;
  return {
    data: typeof runId === "string" && data !== null && typeof data === "object" ? { ...data, run_id: runId } : data,
    node: typeof node === "string" ? node : undefined,
  };
}

const TOOL_EVENTS: Record<string, (p: Record<string, unknown>, id: string) => Record<string, unknown>> = {
  on_tool_start: (p, id) => ({
    event: "tool-started",
    tool_call_id: id,
    tool_name: String(p.name ?? "unknown"),
    input: p.input,
  }),
  on_tool_event: (p, id) => ({
    event: "tool-output-delta",
    tool_call_id: id,
    delta: typeof p.data === "string" ? p.data : JSON.stringify(p.data ?? ""),
  }),
  on_tool_end: (p, id) => ({ event: "tool-finished", tool_call_id: id, output: p.output }),
  on_tool_error: (p, id) => {
    const error = p.error;
    const message =
      isRecord(error) && typeof error.message === "string" ? error.message : String(error ?? "unknown error");
    return { event: "tool-error", tool_call_id: id, message };
  },
};

function toolData(payload: unknown): Record<string, unknown> {
  if (payload === null || typeof payload !== "object")
    return { event: "tool-error", tool_call_id: "", message: "Unexpected tools payload shape" };
  const p = payload as Record<string, unknown>;
  const convert = TOOL_EVENTS[String(p.event)];
  if (!convert) return { event: "tool-error", tool_call_id: "", message: `Unknown tool event: ${String(p.event)}` };
  return convert(p, String(p.toolCallId ?? ""));
}

/** `{ node: update }` as `{ node, values }` (the first node's). */
function updateData(payload: unknown): { node?: string; values: Record<string, unknown> } {
  if (payload === null || typeof payload !== "object") return { values: {} };
  const first = Object.entries(payload)[0];
  if (!first) return { values: {} };
  const [node, values] = first;
  return { node, values: values !== null && typeof values === "object" ? values : { value: values } };
}

export function convertToProtocolEvent({
  namespace,
  mode,
  payload,
  seq,
}: ConvertToProtocolEventOptions): ProtocolEvent[] {
  const event = (method: string, data: unknown, node?: string): ProtocolEvent[] => [
    {
      type: "event",
      seq,
      method,
      params:
        node === undefined
          ? { namespace, timestamp: Date.now(), data }
          : { namespace, timestamp: Date.now(), node, data },
    },
  ];
  switch (mode) {
    case "messages": {
      const { data, node } = messageData(payload);
      return event("messages", data, node || undefined);
    }
    case "tools":
      return event("tools", toolData(payload));
    case "checkpoints":
      return isCheckpointEnvelope(payload) ? event("checkpoints", payload) : [];
    case "updates": {
      const data = updateData(payload);
      return event("updates", data, data.node);
    }
    case "custom":
      return event("custom", isRecord(payload) && "name" in payload ? payload : { payload });
    case "values":
    case "tasks":
      return event(mode, payload);
    default:
      return [];
  }
}
