/**
 * `@interlude/core/prebuilt`: LangGraph.js's prebuilt agent parts (`@langchain/langgraph/prebuilt`),
 * plus a tool-review step. Importing this entry imports `@langchain/core`.
 */
import "../langchain/types.js";

export { AgentModelError, type AgentPrompt } from "./agent-model.js";
export { withAgentName } from "./agent-name.js";
export {
  type AgentStep,
  createAgentExecutor,
  createFunctionCallingExecutor,
  ToolExecutor,
  type ToolExecutorArgs,
  type ToolInvocation,
} from "./legacy-executors.js";
export {
  type ChatModelLike,
  type CreateReactAgentParams,
  createReactAgent,
  createReactAgentAnnotation,
  type ResponseFormat,
  UnsupportedAgentOptionError,
} from "./react-agent.js";
export { type ToolLike, ToolNode, ToolNodeInputError, type ToolNodeOptions, toolsCondition } from "./tool-node.js";
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
