/**
 * `withAgentName(model, "inline")`: for models that ignore a message's `name`, each AI message
 * the model reads carries its agent's name in its text (`<name>a</name><content>...</content>`),
 * and the model's answer has the tags taken out again and the name set back.
 */
import { AIMessage, type BaseMessage, isAIMessage, isAIMessageChunk, isBaseMessage } from "@langchain/core/messages";
import { RunnableLambda, RunnableSequence } from "@langchain/core/runnables";
import { AgentModelError, type ModelLike } from "./agent-model.js";

const NAME = /<name>(.*?)<\/name>/s;
const CONTENT = /<content>(.*?)<\/content>/s;
const tagged = (name: string, text: string) => `<name>${name}</name><content>${text}</content>`;

/** The fields to build a copy of `message` from. */
const fieldsOf = (message: BaseMessage) =>
  Object.keys(message.lc_kwargs ?? {}).length > 0 ? message.lc_kwargs : (message as unknown as Record<string, unknown>);

function addInlineName(message: unknown): unknown {
  if (!isBaseMessage(message) || !(isAIMessage(message) || isAIMessageChunk(message as never)) || !message.name)
    return message;
  const { name } = message;
  if (typeof message.content === "string")
    return new AIMessage({ ...fieldsOf(message), content: tagged(name, message.content), name: undefined });
  let texts = 0;
  const content: any[] = message.content.map((block: any) => {
    if (typeof block === "string") {
      texts++;
      return tagged(name, block);
    }
    if (block?.type === "text") {
      texts++;
      return { ...block, text: tagged(name, block.text) };
    }
    return block;
  });
  if (!texts) content.unshift({ type: "text", text: tagged(name, "") });
  return new AIMessage({ ...message.lc_kwargs, content, name: undefined });
}

function removeInlineName(message: unknown): unknown {
  if (!isAIMessage(message as BaseMessage) || !(message as BaseMessage).content) return message;
  const ai = message as AIMessage;
  let name: string | undefined;
  let content: any;
  if (Array.isArray(ai.content)) {
    content = ai.content
      .filter((block: any) => {
        if (block.type !== "text" || typeof block.text !== "string") return true;
        const nameMatch = block.text.match(NAME);
        const contentMatch = block.text.match(CONTENT);
        // A block holding only the name (the agent said nothing else) is dropped.
        if (nameMatch && (!contentMatch || contentMatch[1] === "")) {
          name = nameMatch[1];
          return false;
        }
        return true;
      })
      .map((block: any) => {
        if (block.type !== "text" || typeof block.text !== "string") return block;
        const nameMatch = block.text.match(NAME);
        const contentMatch = block.text.match(CONTENT);
        if (!nameMatch || !contentMatch) return block;
        name = nameMatch[1];
        return { ...block, text: contentMatch[1] };
      });
  } else {
    const nameMatch = ai.content.match(NAME);
    const contentMatch = ai.content.match(CONTENT);
    if (!nameMatch || !contentMatch) return message;
    name = nameMatch[1];
    content = contentMatch[1];
  }
  return new AIMessage({ ...fieldsOf(ai), content, name });
}

export function withAgentName(model: ModelLike, mode: "inline"): RunnableSequence {
  if (mode !== "inline") throw new AgentModelError(`Invalid agent name mode: ${mode}. Needs to be one of: "inline"`);
  return RunnableSequence.from([
    RunnableLambda.from((messages: unknown[]) => messages.map(addInlineName)),
    model,
    RunnableLambda.from(removeInlineName),
  ]);
}
