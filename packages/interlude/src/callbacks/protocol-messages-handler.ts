/**
 * Stream mode `"messages"` for streamEvents v3: messages as the protocol's events
 * (`message-start`, `content-block-start`/`-delta`/`-finish`, `message-finish`) instead of
 * message chunks. A chat model streams its own events (LangChain builds them, for a handler
 * that prefers them); a model that did not stream, and a message a node returns or pushes, are
 * told once as a whole message, each block in one delta.
 */
import type { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { BaseMessage } from "@langchain/core/messages";
import type { LangChain } from "../langchain/typed.js";
import { nodeOriginHandler, type Origin, originOf } from "./messages-handler.js";
import type { EventPlace } from "./namespace.js";

type Block = Record<string, any>;
type EmitEvent = (ns: string, chunk: [event: Record<string, unknown>, metadata: Record<string, unknown>]) => void;

/** A content block as it starts, before its content streams. */
function startOf(block: Block): Block {
  switch (block.type) {
    case "text":
      return { type: "text", text: "" };
    case "reasoning":
      return { type: "reasoning", reasoning: "" };
    case "tool_call":
    case "tool_call_chunk":
      return {
        type: "tool_call_chunk",
        ...(block.id != null ? { id: block.id } : {}),
        ...(block.name != null ? { name: block.name } : {}),
        args: "",
      };
    default:
      return block;
  }
}

/** The whole of a block's content as one delta (none for an empty text, or a block that does not stream). */
function deltaOf(block: Block, index: number): Record<string, unknown> | undefined {
  const delta = (body: Record<string, unknown>) => ({ event: "content-block-delta", index, delta: body });
  switch (block.type) {
    case "text":
      return typeof block.text === "string" && block.text ? delta({ type: "text-delta", text: block.text }) : undefined;
    case "reasoning":
      return typeof block.reasoning === "string" && block.reasoning
        ? delta({ type: "reasoning-delta", reasoning: block.reasoning })
        : undefined;
    case "tool_call_chunk":
      return delta({ type: "block-delta", fields: { ...block, type: "tool_call_chunk" } });
    default:
      return undefined;
  }
}

const ROLES: Record<string, string> = { human: "human", system: "system", tool: "tool" };

export function createProtocolMessagesHandler(lc: LangChain, emit: EmitEvent, place: EventPlace): BaseCallbackHandler {
  const { isBaseMessage, isToolMessage } = lc.messages;

  class StreamProtocolMessagesHandler extends nodeOriginHandler(lc, place) {
    override name = "StreamProtocolMessagesHandler";
    /** LangChain hands such a handler a chat model's own protocol events. */
    lc_prefer_chat_model_stream_events = true;
    override awaitHandlers = true;

    private send(origin: Origin, event: Record<string, unknown>, runId: string | undefined) {
      emit(origin.ns, [event, runId !== undefined ? { ...origin.metadata, run_id: runId } : origin.metadata]);
    }

    private idOf(message: BaseMessage, runId: string | undefined): string | undefined {
      let id = message.id;
      if (runId !== undefined) {
        if (isToolMessage(message)) id ??= `run-${runId}-tool-${message.tool_call_id}`;
        else id = this.callMessageId(id, runId);
      }
      if (id !== message.id) {
        message.id = id;
        message.lc_kwargs.id = id;
      }
      if (id != null) this.seen.add(id);
      return id;
    }

    /** A whole message as its events: start, each block (start, one delta, finish), finish. */
    private sendWhole(origin: Origin, message: BaseMessage, runId: string | undefined, dedupe: boolean) {
      const known = message.id ?? (runId !== undefined ? this.callIds.get(runId) : undefined);
      if (dedupe && known != null && this.seen.has(known)) return;
      const id = this.idOf(message, runId);
      const role = ROLES[message.getType()] ?? "ai";
      this.send(
        origin,
        {
          event: "message-start",
          ...(id != null ? { id } : {}),
          ...(role !== "ai" ? { role } : {}),
          ...(role === "tool" && isToolMessage(message) ? { tool_call_id: message.tool_call_id } : {}),
        },
        runId,
      );
      const content = message.content;
      const blocks: Block[] = Array.isArray(content)
        ? (content as Block[])
        : typeof content === "string" && content
          ? [{ type: "text", text: content }]
          : [];
      blocks.forEach((block, offset) => {
        const index = typeof block.index === "number" ? block.index : offset;
        this.send(origin, { event: "content-block-start", index, content: startOf(block) }, runId);
        const delta = deltaOf(block, index);
        if (delta) this.send(origin, delta, runId);
        this.send(origin, { event: "content-block-finish", index, content: block }, runId);
      });
      const { usage_metadata: usage, response_metadata: response } = message as BaseMessage & Record<string, any>;
      this.send(
        origin,
        {
          event: "message-finish",
          ...(usage != null && typeof usage === "object" ? { usage } : {}),
          ...(response != null && typeof response === "object" ? { responseMetadata: response } : {}),
        },
        runId,
      );
    }

    /** A message a node pushed (messages/push.ts): told at once, and not again when the node returns it. */
    pushMessage(message: BaseMessage, metadata: Record<string, unknown>, tags?: string[]) {
      const origin = originOf(place, metadata, tags, undefined);
      if (origin) this.sendWhole(origin, message, undefined, true);
    }

    override handleChatModelStreamEvent(streamEvent: object, runId: string) {
      const origin = this.origins.get(runId);
      if (!origin) return;
      let event = streamEvent as Record<string, unknown>;
      if (event.event === "message-start") {
        this.streamed.add(runId);
        const id = (event.id as string | undefined) ?? `run-${runId}`;
        this.seen.add(id);
        if (!this.callIds.has(runId)) this.callIds.set(runId, id);
        if (event.id == null) event = { ...event, id };
      }
      this.send(origin, event, runId);
    }

    override handleLLMEnd(output: any, runId: string) {
      const origin = this.origins.get(runId);
      const message = output?.generations?.[0]?.[0]?.message;
      if (origin && isBaseMessage(message)) {
        // A streamed message was told already: only its id is kept, so the node returning it tells nothing.
        if (this.streamed.has(runId)) this.idOf(message, runId);
        else this.sendWhole(origin, message, runId, true);
      }
      this.forget(runId);
    }

    override handleLLMError(_error: unknown, runId: string) {
      this.forget(runId);
    }

    private forget(runId: string) {
      this.origins.delete(runId);
      this.streamed.delete(runId);
      this.callIds.delete(runId);
    }

    override handleChainEnd(outputs: unknown, runId: string) {
      const origin = this.origins.get(runId);
      this.origins.delete(runId);
      if (!origin) return;
      this.eachOutputMessage(outputs, (message) => {
        if (!isToolMessage(message)) this.sendWhole(origin, message, runId, true);
      });
      this.callIds.delete(runId);
    }

    override handleChainError(_error: unknown, runId: string) {
      this.origins.delete(runId);
      this.callIds.delete(runId);
    }
  }
  return new StreamProtocolMessagesHandler();
}
