/**
 * `@interlude/core/channels`, for code written against `@langchain/langgraph/channels`: the
 * channel classes a state can declare (also exported by the root entry). LangGraph.js's
 * checkpoint helpers of that entry (`createCheckpoint`, `channelsFromCheckpoint`, ...) and
 * `BaseChannel` are not: Interlude runs no custom channel classes.
 */
export * from "./index.js";
