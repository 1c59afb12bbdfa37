/**
 * The callback handlers a stream's modes need: tokens (`"messages"`) and tool calls (`"tools"`)
 * reach the stream through handlers that the chat models and tools called with a node's config
 * report to. A v3 run (streamEvents) has them tell protocol events, under the node's namespace.
 */
import type { RunnableConfig } from "../checkpoint/types.js";
import { LangChainMissingError } from "../langchain/load.js";
import { type LangChain, loadTypedLangChain } from "../langchain/typed.js";
import type { Emitter, StreamMode } from "../run/emitter.js";
import { createMessagesHandler } from "./messages-handler.js";
import { type EventPlace, graphPlace, nodePlace } from "./namespace.js";
import { createProtocolMessagesHandler } from "./protocol-messages-handler.js";
import { createToolsHandler } from "./tools-handler.js";
import { addHandler } from "./trace.js";

/** What makes the callback handler of a stream mode (its chunk type left open). */
type CallbackHandlerFactory = (lc: LangChain, emit: (ns: string, chunk: any) => void, place: EventPlace) => unknown;

/** The stream modes told by callback handlers, and what makes each handler. */
const CALLBACK_MODES: ReadonlyArray<readonly [StreamMode, CallbackHandlerFactory]> = [
  ["messages", createMessagesHandler],
  ["tools", createToolsHandler],
];
/** The same for streamEvents v3: messages as protocol events. */
const PROTOCOL_CALLBACK_MODES: ReadonlyArray<readonly [StreamMode, CallbackHandlerFactory]> = [
  ["messages", createProtocolMessagesHandler],
  ["tools", createToolsHandler],
];

/** `@langchain/core` if it is installed, else undefined. */
async function optionalLangChain(): Promise<LangChain | undefined> {
  try {
    return await loadTypedLangChain("streamEvents v3");
  } catch (error) {
    if (error instanceof LangChainMissingError) return undefined;
    throw error;
  }
}

/** `config` with the handlers `modes` need added to its callbacks. */
export async function withStreamHandlers(
  config: RunnableConfig,
  modes: readonly StreamMode[],
  emitter: Emitter,
  protocol: boolean,
): Promise<RunnableConfig> {
  const place = protocol ? nodePlace : graphPlace(emitter.subgraphs);
  for (const [mode, create] of protocol ? PROTOCOL_CALLBACK_MODES : CALLBACK_MODES) {
    if (!modes.includes(mode)) continue;
    const lc = await (protocol ? optionalLangChain() : loadTypedLangChain(`Stream mode "${mode}"`));
    // A v3 stream without @langchain/core installed: no model or tool can be reporting.
    if (!lc) break;
    const handler = create(lc, (ns: string, chunk: unknown) => emitter.emit(ns, mode, chunk), place);
    config = { ...config, callbacks: addHandler(config.callbacks, handler) };
  }
  return config;
}
