/**
 * What counts as progress for a node's idle timeout under `refreshOn: "auto"`, besides its
 * writer chunks: LangChain callback events under the node (a chat model's tokens, a tool's
 * start and end, ...), as in LangGraph.js. The handler is a plain object (LangChain takes any
 * handler with a `name`), so a graph without LangChain loads none for it.
 */

const IDLE_PROGRESS = Symbol("interlude.idleProgress");

const EVENTS = [
  "handleLLMStart",
  "handleChatModelStart",
  "handleLLMNewToken",
  "handleLLMEnd",
  "handleLLMError",
  "handleChainStart",
  "handleChainEnd",
  "handleChainError",
  "handleToolStart",
  "handleToolEnd",
  "handleToolError",
  "handleText",
  "handleRetrieverStart",
  "handleRetrieverEnd",
  "handleRetrieverError",
  "handleCustomEvent",
];

/** A callback handler that calls `progress` on every event it is told of. */
export function idleProgressHandler(progress: () => void): Record<string | symbol, unknown> {
  const handler: Record<string | symbol, unknown> = {
    name: "IdleProgressCallbackHandler",
    // Called inline: touching a clock needs no queue.
    awaitHandlers: true,
    [IDLE_PROGRESS]: true,
  };
  for (const event of EVENTS) handler[event] = progress;
  return handler;
}

/** Whether the run has callbacks of the caller's (not only idle clocks' handlers), which make it a chain run. */
export function hasCallerCallbacks(callbacks: unknown): boolean {
  if (callbacks === undefined || callbacks === null) return false;
  if (!Array.isArray(callbacks)) return true;
  return (
    callbacks.length === 0 || callbacks.some((handler) => !(handler as Record<symbol, unknown> | null)?.[IDLE_PROGRESS])
  );
}
