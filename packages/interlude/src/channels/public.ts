/**
 * `@interlude/core/channels`, for code written against `@langchain/langgraph/channels`: the
 * channel classes a state or a low-level graph can declare, and `BaseChannel` for your own (also
 * exported by the root entry). LangGraph.js's checkpoint helpers of that entry
 * (`createCheckpoint`, `channelsFromCheckpoint`, ...) are not: checkpoints are the savers' business.
 */
export * from "./index.js";
