/**
 * `@interlude/core/prebuilt`: LangGraph.js's prebuilt agent parts (`@langchain/langgraph/prebuilt`),
 * plus a tool-review step. Importing this entry imports `@langchain/core`.
 */
import "../langchain/types.js";

export {
  type ChatModelLike,
  type CreateReactAgentParams,
  createReactAgent,
  createReactAgentAnnotation,
  UnsupportedAgentOptionError,
} from "./react-agent.js";
export { type ToolLike, ToolNode, type ToolNodeOptions, ToolOutputError, toolsCondition } from "./tool-node.js";
export {
  type ActionRequest,
  createToolReviewNode,
  type Decision,
  type DecisionType,
  type HITLRequest,
  type HITLResponse,
  type InterruptOnConfig,
  type ReviewConfig,
  reviewCondition,
  type ToolReviewOptions,
} from "./tool-review.js";
