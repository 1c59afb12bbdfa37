/**
 * Stream mode `"messages"`: a LangChain callback handler that turns a chat model's tokens into
 * `[messageChunk, metadata]` chunks, and emits once each message a node returns that was not
 * streamed token by token (or given to the node in its input), as LangGraph does.
 */
import type { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { BaseMessage } from "@langchain/core/messages";
import type { LangChain } from "../langchain/typed.js";
import { isCommand } from "../primitives/command.js";
import type { EventPlace } from "./namespace.js";

/** `ns` is the stream namespace of the node that made the message ("" for the root graph). */
export type EmitMessage = (ns: string, chunk: [message: BaseMessage, metadata: Record<string, unknown>]) => void;

export interface Origin {
  ns: string;
  metadata: Record<string, unknown>;
}

/** Where the stream tells an event, and the metadata it carries; undefined when the stream does not show it. */
export function originOf(
  place: EventPlace,
  metadata: Record<string, unknown> | undefined,
  tags: string[] | undefined,
  name: string | undefined,
): Origin | undefined {
  const ns = place(metadata);
  if (ns === undefined) return undefined;
  return { ns, metadata: { tags, name, ...metadata } };
}

/**
 * What both `"messages"` handlers share: the node (and model call) each callback run belongs
 * to, where the stream tells it, and the ids of messages a node was given (not news when it
 * returns them).
 */
export interface NodeOrigins {
  readonly origins: Map<string, Origin>;
  readonly seen: Set<string>;
  readonly streamed: Set<string>;
  readonly callIds: Map<string, string>;
  callMessageId(id: string | undefined, runId: string): string;
  eachOutputMessage(output: unknown, visit: (message: BaseMessage) => void): void;
}

export function nodeOriginHandler(
  lc: LangChain,
  place: EventPlace,
): abstract new () => BaseCallbackHandler & NodeOrigins {
  const { isBaseMessage, isBaseMessageChunk } = lc.messages;
  abstract class NodeOriginHandler extends lc.BaseCallbackHandler {
    /** Where each model call's and node chain's events are told, by run id. */
    readonly origins = new Map<string, Origin>();
    /** Ids of messages already told, or given to a node. */
    readonly seen = new Set<string>();
    /** Model calls that streamed: their whole message is not told again at their end. */
    readonly streamed = new Set<string>();
    /** One id for every chunk (or event) of a model call, so a reader can join them. */
    readonly callIds = new Map<string, string>();

    /**
     * The messages a node returned, in order: its return value itself, a list of them (or of
     * Commands), each state key's value or list, and the updates of the Commands among them.
     */
    eachOutputMessage(output: unknown, visit: (message: BaseMessage) => void): void {
      const walk = (value: unknown): void => {
        if (isCommand(value)) walk(value.update);
        else if (isBaseMessage(value)) visit(value);
        else if (Array.isArray(value)) {
          const commands = value.some(isCommand);
          for (const item of value)
            if (commands) walk(item);
            else if (isBaseMessage(item)) visit(item);
        } else if (value !== null && typeof value === "object")
          for (const item of Object.values(value))
            if (Array.isArray(item)) walk(item);
            else if (isBaseMessage(item)) visit(item);
      };
      walk(output);
    }

    /** The id a message of model call `runId` is told under: its own, else the call's. */
    callMessageId(id: string | undefined, runId: string): string {
      if (id == null || id === `run-${runId}`) id = this.callIds.get(runId) ?? id ?? `run-${runId}`;
      if (!this.callIds.has(runId)) this.callIds.set(runId, id);
      return id;
    }

    override handleChatModelStart(
      _llm: unknown,
      _messages: unknown,
      runId: string,
      _parentRunId?: string,
      _extra?: unknown,
      tags?: string[],
      metadata?: Record<string, unknown>,
      name?: string,
    ) {
      if (tags?.includes("nostream") || tags?.includes("langsmith:nostream")) return;
      const origin = originOf(place, metadata, tags, name);
      if (origin) this.origins.set(runId, origin);
    }

    override handleChainStart(
      _chain: unknown,
      inputs: Record<string, unknown>,
      runId: string,
      _parentRunId?: string,
      tags?: string[],
      metadata?: Record<string, unknown>,
      _runType?: string,
      name?: string,
    ) {
      // Only the chain of a node (not chains the node runs itself) reports the node's output.
      if (!metadata || name !== metadata.langgraph_node || tags?.includes("langsmith:hidden")) return;
      const origin = originOf(place, metadata, tags, name);
      if (!origin) return;
      this.origins.set(runId, origin);
      // Messages the node was given are not news when it returns them.
      if (inputs && typeof inputs === "object")
        for (const value of Object.values(inputs))
          for (const item of Array.isArray(value) ? value : [value])
            if ((isBaseMessage(item) || isBaseMessageChunk(item)) && item.id !== undefined) this.seen.add(item.id);
    }
  }
  return NodeOriginHandler;
}

/**
 * `place`: where the stream tells an event (callbacks/namespace.ts). A hidden subgraph's tokens are not
 * marked as sent, so its final message still shows once, as the output of the parent's node.
 */
export function createMessagesHandler(lc: LangChain, emit: EmitMessage, place: EventPlace): BaseCallbackHandler {
  const { isBaseMessage, isToolMessage, AIMessageChunk } = lc.messages;

  class StreamMessagesHandler extends nodeOriginHandler(lc, place) {
    override name = "StreamMessagesHandler";
    /** Makes chat models stream even when the node calls `invoke()`. */
    lc_prefer_streaming = true;
    /**
     * Called inline rather than through LangChain's global callback queue (p-queue, one task and
     * several promises per token); `send` is synchronous, so the model waits for nothing.
     */
    override awaitHandlers = true;

    private send(origin: Origin, message: BaseMessage, runId: string, dedupe: boolean, outputIndex?: number) {
      if (dedupe && message.id !== undefined && this.seen.has(message.id)) return;
      let id = message.id;
      if (isToolMessage(message)) id ??= `run-${runId}-tool-${message.tool_call_id}`;
      else if (outputIndex !== undefined) id ??= `run-${runId}-out-${outputIndex}`;
      else id = this.callMessageId(id, runId);
      if (id !== message.id) {
        message.id = id;
        message.lc_kwargs.id = id;
      }
      this.seen.add(id);
      emit(origin.ns, [message, origin.metadata]);
    }

    /** A message a node pushed (messages/push.ts): shown at once, and not again when the node returns it. */
    pushMessage(message: BaseMessage, metadata: Record<string, unknown>, tags?: string[]) {
      const origin = originOf(place, metadata, tags, undefined);
      if (!origin) return;
      this.seen.add(message.id!);
      emit(origin.ns, [message, origin.metadata]);
    }

    override handleLLMNewToken(token: string, _idx: unknown, runId: string, _p?: string, _t?: string[], fields?: any) {
      this.streamed.add(runId);
      const origin = this.origins.get(runId);
      if (!origin) return;
      const message = fields?.chunk?.message;
      this.send(origin, isBaseMessage(message) ? message : new AIMessageChunk({ content: token }), runId, false);
    }

    override handleLLMEnd(output: any, runId: string) {
      const origin = this.origins.get(runId);
      this.origins.delete(runId);
      // A model that did not stream (no tokens) still shows its answer once.
      if (origin && !this.streamed.has(runId)) {
        const message = output?.generations?.[0]?.[0]?.message;
        if (isBaseMessage(message)) this.send(origin, message, runId, true);
      }
      this.streamed.delete(runId);
      this.callIds.delete(runId);
    }

    override handleLLMError(_error: unknown, runId: string) {
      this.origins.delete(runId);
      this.streamed.delete(runId);
    }

    override handleChainEnd(outputs: unknown, runId: string) {
      const origin = this.origins.get(runId);
      this.origins.delete(runId);
      if (!origin) return;
      let index = 0;
      this.eachOutputMessage(outputs, (message) => this.send(origin, message, runId, true, index++));
    }

    override handleChainError(_error: unknown, runId: string) {
      this.origins.delete(runId);
    }
  }
  return new StreamMessagesHandler();
}
