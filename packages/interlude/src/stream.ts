/**
 * `@interlude/core/stream`, for code written against `@langchain/langgraph/stream`: the run
 * stream's building blocks (also exported by the root entry).
 */
export {
  convertToProtocolEvent,
  EventLog,
  isCheckpointEnvelope,
  STREAM_EVENTS_V3_MODES,
  StreamChannel,
} from "./index.js";

import { StreamChannel } from "./index.js";

/** Whether `value` is a `StreamChannel` (of either runtime: the brand is LangGraph.js's). */
export const isStreamChannel = (value: unknown): value is StreamChannel => StreamChannel.isInstance(value);
