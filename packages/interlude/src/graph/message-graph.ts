/**
 * `MessageGraph` (deprecated in LangGraph.js, kept for code written against it): a graph whose
 * whole state is one list of messages. Nodes are given the list and return messages to add
 * (or to replace, by id), as the messages reducer merges them.
 */
import { ROOT } from "../constants.js";
import { messagesStateReducer } from "../messages/reducer.js";
import { StateGraph } from "./state-graph.js";

export class MessageGraph extends StateGraph<any> {
  constructor() {
    super({ channels: { [ROOT]: { reducer: messagesStateReducer, default: () => [] } } });
  }
}
