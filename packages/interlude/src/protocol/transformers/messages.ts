/**
 * The AI messages made directly under a graph, each as LangChain's `ChatModelStream` fed by the
 * protocol's message events (start, content blocks, finish): `run.messages`,
 * `run.messagesFrom(node)`. Tool messages are left out.
 */
import { chatModelStreamClass } from "../../langchain/load.js";
import { StreamChannel } from "../channel.js";
import { type ChatModelStreamHandle, hasPrefix, type Namespace, type StreamTransformer } from "../types.js";

/** One message's events: by the model call's run id, else by the message's id. */
function streamKey(data: Record<string, unknown>): string {
  if (typeof data.run_id === "string") return `run:${data.run_id}`;
  if (data.event === "message-start" && typeof data.id === "string") return `message:${data.id}`;
  return "__default__";
}

export function createMessagesTransformer(
  path: Namespace,
  node?: string,
): StreamTransformer<{ messages: AsyncIterable<ChatModelStreamHandle> }> {
  const log = StreamChannel.local<ChatModelStreamHandle>();
  const active = new Map<string, StreamChannel<unknown>>();
  const ignored = new Set<string>();
  return {
    init: () => ({ messages: log.toAsyncIterable() }),
    process(event) {
      const ns = event.params.namespace;
      if (event.method !== "messages" || ns.length !== path.length + 1 || !hasPrefix(ns, path)) return true;
      if (node !== undefined && event.params.node !== node) return true;
      const data = event.params.data as Record<string, unknown>;
      const key = streamKey(data);
      switch (data.event) {
        case "message-start": {
          if (data.role === "tool") {
            ignored.add(key);
            break;
          }
          const source = StreamChannel.local<unknown>();
          const ChatModelStream = chatModelStreamClass("run.messages");
          const stream = Object.assign(new ChatModelStream(source.toAsyncIterable()), {
            namespace: ns,
            node: event.params.node,
          });
          active.set(key, source);
          source.push(data);
          log.push(stream);
          break;
        }
        case "content-block-start":
        case "content-block-delta":
        case "content-block-finish":
        case "error":
          if (!ignored.has(key)) active.get(key)?.push(data);
          break;
        case "message-finish": {
          if (ignored.delete(key)) break;
          const source = active.get(key);
          if (!source) break;
          source.push(data);
          source.close();
          active.delete(key);
          break;
        }
      }
      return true;
    },
    finalize() {
      // A message still open when the run ends is finished as it stands.
      for (const source of active.values()) {
        source.push({ event: "message-finish" });
        source.close();
      }
      active.clear();
      ignored.clear();
      log.close();
    },
    fail(error) {
      for (const source of active.values()) source.fail(error);
      active.clear();
      ignored.clear();
      log.fail(error);
    },
  };
}
