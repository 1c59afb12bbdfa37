/**
 * One run's LangGraph Server stream events (`values`, `updates`, `messages` tuples, `tools`,
 * `error`, `end`), already in wire shape, told as the thread-centric streaming protocol's events
 * (what `@langchain/react`'s `useStream` reads): `values` without `__interrupt__`, one
 * `input.requested` per new interrupt, a chat model's chunks as `message-start` /
 * `content-block-*` / `message-finish`, and the run's `lifecycle`. Pure: no clock, no I/O.
 */

/** An event's method and data; the thread stream adds `seq`, `event_id`, namespace and time. */
export interface ProtocolEventBody {
  method: "values" | "updates" | "messages" | "tools" | "lifecycle" | "input.requested" | "input.answered";
  data: unknown;
  node?: string;
}

type RunStatus = "running" | "completed" | "interrupted" | "failed";

/** A refused answer as the SDK's strict resume reads it from the `failed` lifecycle. */
export interface StrictResumeRefusal {
  reason: string;
  interrupt_ids: string[];
  pending_ids: string[];
}

/**
 * Whether a run's error (its body, runs/outcome.ts) refused answers to interrupts that are not
 * waiting: `answered` are the ids the run resumed.
 */
export function strictResumeRefusal(error: unknown, answered: readonly string[]): StrictResumeRefusal | undefined {
  if (!isRecord(error)) return undefined;
  if (error.code === "UNKNOWN_INTERRUPT") {
    const unknown = Array.isArray(error.unknown_ids) ? (error.unknown_ids as string[]) : [...answered];
    const pending = Array.isArray(error.pending) ? error.pending.filter(isRecord).map((p) => String(p.id)) : [];
    return { reason: "not_pending", interrupt_ids: unknown, pending_ids: pending };
  }
  // The thread waits for nothing (finished, or at a breakpoint): none of the answered ids is open.
  if (error.code === "NOTHING_TO_RESUME" && answered.length)
    return { reason: "not_pending", interrupt_ids: [...answered], pending_ids: [] };
  return undefined;
}

interface WireMessage {
  id?: string;
  type?: string;
  content?: unknown;
  tool_call_chunks?: Array<{ index?: number; id?: string | null; name?: string | null; args?: string | null }>;
  tool_calls?: Array<{ id?: string | null; name: string; args: Record<string, unknown> }>;
}

/** A message being streamed: its text block and its tool calls, by the model's chunk index. */
interface OpenMessage {
  id: string;
  text: string | undefined;
  calls: Map<number, { id: string | null; name: string | null; args: string }>;
}

const INTERRUPT = "__interrupt__";
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (isRecord(p) && p.type === "text" && typeof p.text === "string" ? p.text : "")).join("");
}

function parseArgs(args: string): Record<string, unknown> {
  try {
    const value = JSON.parse(args || "{}") as unknown;
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

export class ProtocolTranslator {
  private open: OpenMessage | undefined;
  private readonly asked = new Set<string>();
  private failed = false;
  private finished = false;

  /** The `lifecycle` event a run begins with. */
  start(graphName: string): ProtocolEventBody[] {
    return [{ method: "lifecycle", data: { event: "running", graph_name: graphName } }];
  }

  /** The protocol events of one server stream event. */
  translate(event: string, data: unknown): ProtocolEventBody[] {
    const name = event.split("|")[0];
    switch (name) {
      case "messages":
        return this.chunk(data);
      case "values":
        return [...this.closeMessage(), ...this.values(data)];
      case "updates":
        return [...this.closeMessage(), ...this.updates(data)];
      case "tools":
        return [{ method: "tools", data: this.tool(data) }];
      case "error":
        this.failed = true;
        return this.closeMessage();
      default:
        return [];
    }
  }

  /**
   * The closing events once the run's stream ends, its last `lifecycle` event among them. `refusal`: why a strict resume was refused (the answered
   * interrupts that are not waiting, and those that are), which the SDK raises as its
   * `UnknownInterruptError` and uses to show the waiting questions again.
   */
  finish(graphName: string, error?: string, refusal?: StrictResumeRefusal): ProtocolEventBody[] {
    if (this.finished) return [];
    this.finished = true;
    const status: RunStatus = this.failed || error ? "failed" : this.asked.size ? "interrupted" : "completed";
    const data: Record<string, unknown> = { event: status, graph_name: graphName };
    if (error) data.error = error;
    if (refusal) Object.assign(data, refusal);
    return [...this.closeMessage(), { method: "lifecycle", data }];
  }

  private interrupts(list: unknown): ProtocolEventBody[] {
    if (!Array.isArray(list)) return [];
    const out: ProtocolEventBody[] = [];
    for (const entry of list) {
      if (!isRecord(entry) || typeof entry.id !== "string" || this.asked.has(entry.id)) continue;
      this.asked.add(entry.id);
      out.push({ method: "input.requested", data: { interrupt_id: entry.id, payload: entry.value } });
    }
    return out;
  }

  private values(data: unknown): ProtocolEventBody[] {
    if (!isRecord(data)) return [{ method: "values", data }];
    const { [INTERRUPT]: pending, ...values } = data;
    const asked = this.interrupts(pending);
    return Object.keys(values).length ? [...asked, { method: "values", data: values }] : asked;
  }

  private updates(data: unknown): ProtocolEventBody[] {
    if (!isRecord(data)) return [];
    if (INTERRUPT in data) return this.interrupts(data[INTERRUPT]);
    return Object.entries(data).map(([node, values]) => ({ method: "updates" as const, node, data: values }));
  }

  private tool(data: unknown): unknown {
    if (!isRecord(data)) return data;
    const id = String(data.tool_call_id ?? data.toolCallId ?? data.id ?? "");
    switch (data.event) {
      case "on_tool_start":
        return { event: "tool-started", tool_call_id: id, tool_name: data.name ?? "tool", input: data.input };
      case "on_tool_end":
        return { event: "tool-finished", tool_call_id: id, output: data.output };
      case "on_tool_error":
        return {
          event: "tool-error",
          tool_call_id: id,
          message: String((data.error as { message?: string })?.message ?? data.error),
        };
      default:
        return data;
    }
  }

  /** A `messages` tuple `[message or chunk, metadata]`: assistant messages stream; others come with `values`. */
  private chunk(data: unknown): ProtocolEventBody[] {
    if (!Array.isArray(data)) return [];
    const [message, metadata] = data as [WireMessage, Record<string, unknown> | undefined];
    if (typeof message !== "object" || message === null || (message.type !== "ai" && message.type !== "AIMessageChunk"))
      return [];
    const out: ProtocolEventBody[] = [];
    const id = message.id ?? this.open?.id ?? "message";
    if (this.open?.id !== id) {
      out.push(...this.closeMessage());
      this.open = { id, text: undefined, calls: new Map() };
      out.push({ method: "messages", data: { event: "message-start", role: "ai", id, metadata: metadata ?? {} } });
    }
    const open = this.open!;
    const text = textOf(message.content);
    if (text) {
      if (open.text === undefined) {
        open.text = "";
        out.push({
          method: "messages",
          data: { event: "content-block-start", index: 0, content: { type: "text", text: "" } },
        });
      }
      open.text += text;
      out.push({
        method: "messages",
        data: { event: "content-block-delta", index: 0, delta: { type: "text-delta", text } },
      });
    }
    // Tool-call arguments arrive in pieces; the call is told whole when the message ends.
    for (const piece of message.tool_call_chunks ?? []) {
      const index = piece.index ?? 0;
      const call = open.calls.get(index) ?? { id: null, name: null, args: "" };
      call.id ??= piece.id ?? null;
      call.name ??= piece.name ?? null;
      call.args += piece.args ?? "";
      open.calls.set(index, call);
    }
    if (!message.tool_call_chunks?.length)
      for (const [index, call] of (message.tool_calls ?? []).entries())
        open.calls.set(index, { id: call.id ?? null, name: call.name, args: JSON.stringify(call.args) });
    return out;
  }

  private closeMessage(): ProtocolEventBody[] {
    const open = this.open;
    if (!open) return [];
    this.open = undefined;
    const out: ProtocolEventBody[] = [];
    if (open.text !== undefined)
      out.push({
        method: "messages",
        data: { event: "content-block-finish", index: 0, content: { type: "text", text: open.text } },
      });
    let index = open.text === undefined ? 0 : 1;
    for (const call of open.calls.values()) {
      const block = { type: "tool_call", id: call.id, name: call.name ?? "", args: parseArgs(call.args) };
      out.push({
        method: "messages",
        data: { event: "content-block-start", index, content: { ...block, type: "tool_call_chunk", args: call.args } },
      });
      out.push({ method: "messages", data: { event: "content-block-finish", index, content: block } });
      index++;
    }
    out.push({ method: "messages", data: { event: "message-finish" } });
    return out;
  }
}
