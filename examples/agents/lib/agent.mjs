// A tool-review agent written the way LangGraph.js's documentation writes one: messages state, a
// chat model with bindTools, a review node that calls interrupt(), ToolNode, toolsCondition.
// Only the import specifiers are Interlude's (on LangGraph.js: "@langchain/langgraph" and
// "@langchain/langgraph/prebuilt"). The interrupt speaks LangChain v1's humanInTheLoopMiddleware
// protocol: { actionRequests, reviewConfigs } answered by { decisions: [...] }.
import { Command, END, interrupt, MessagesAnnotation, START, StateGraph } from "@interlude/core";
import { ToolNode, toolsCondition } from "@interlude/core/prebuilt";
import { AIMessage, ToolMessage } from "@langchain/core/messages";

export function buildAgent({ model, tools, checkpointer }) {
  const boundModel = model.bindTools(tools);

  async function callModel(state) {
    const response = await boundModel.invoke(state.messages);
    return { messages: [response] };
  }

  function humanReview(state) {
    const last = state.messages.at(-1);
    const call = last.tool_calls[0];
    const { decisions } = interrupt({
      actionRequests: [{ name: call.name, args: call.args, description: `Review the call to ${call.name}` }],
      reviewConfigs: [{ actionName: call.name, allowedDecisions: ["approve", "edit", "reject"] }],
    });
    const decision = decisions[0];
    if (decision.type === "approve") return new Command({ goto: "tools" });
    if (decision.type === "edit") {
      const edited = new AIMessage({
        content: last.content,
        id: last.id,
        tool_calls: [{ ...call, name: decision.editedAction.name, args: decision.editedAction.args }],
      });
      return new Command({ goto: "tools", update: { messages: [edited] } });
    }
    const reason = new ToolMessage({
      content: decision.message ?? "The reviewer rejected this call.",
      name: call.name,
      tool_call_id: call.id,
      status: "error",
    });
    return new Command({ goto: "agent", update: { messages: [reason] } });
  }

  return new StateGraph(MessagesAnnotation)
    .addNode("agent", callModel)
    .addNode("human_review", humanReview, { ends: ["agent", "tools"] })
    .addNode("tools", new ToolNode(tools))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, { tools: "human_review", [END]: END })
    .addEdge("tools", "agent")
    .compile({ checkpointer });
}
