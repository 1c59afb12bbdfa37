/**
 * `@interlude/core/pregel`, for code written against `@langchain/langgraph/pregel`: the
 * low-level graph of channels and actors (`Pregel`, `Channel`).
 */

export { Channel, type SubscribeOptions } from "./channel.js";
export { ChannelWrite, type ChannelWriteEntry, PASSTHROUGH } from "./channel-write.js";
export { type NodeStep, PregelNode, type PregelNodeFields } from "./node.js";
export { Pregel, type PregelParams } from "./pregel.js";
