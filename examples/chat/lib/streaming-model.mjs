// The chat page's offline model: answers from a script like ScriptedChatModel, but streams each
// answer in several chunks with a pause between them, so a page shows the text arriving (a real
// provider streams the same way: AIMessageChunks sharing one id, tool calls as tool-call chunks).
import { AIMessageChunk } from "@langchain/core/messages";
import { ChatGenerationChunk } from "@langchain/core/outputs";
import { ScriptedChatModel } from "../../agents/lib/scripted-model.mjs";

/** Text in pieces of `words` words each (spaces kept, so the pieces join back to the text). */
export function pieces(text, words = 2) {
  const tokens = text.match(/\S+\s*/g) ?? [];
  const out = [];
  for (let i = 0; i < tokens.length; i += words) out.push(tokens.slice(i, i + words).join(""));
  return out;
}

export class StreamingScriptedModel extends ScriptedChatModel {
  /** @param {{ delayMs?: number }} [options] pause before each chunk */
  constructor(script, { delayMs = 60 } = {}) {
    super(script);
    this.delayMs = delayMs;
  }

  _llmType() {
    return "scripted-streaming";
  }

  bindTools(tools) {
    const bound = new StreamingScriptedModel(this.script, { delayMs: this.delayMs });
    bound.toolNames = tools.map((t) => t.name);
    return bound;
  }

  async *_streamResponseChunks(messages, options, runManager) {
    const answer = this.script(messages);
    const id = `scripted-${crypto.randomUUID()}`;
    const text = typeof answer.content === "string" ? answer.content : "";
    for (const piece of pieces(text)) {
      await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      options?.signal?.throwIfAborted();
      const chunk = new ChatGenerationChunk({ message: new AIMessageChunk({ id, content: piece }), text: piece });
      yield chunk;
      await runManager?.handleLLMNewToken(piece, undefined, undefined, undefined, undefined, { chunk });
    }
    const calls = answer.tool_calls ?? [];
    if (!calls.length) return;
    const tool_call_chunks = calls.map((call, index) => ({
      type: "tool_call_chunk",
      index,
      id: call.id,
      name: call.name,
      args: JSON.stringify(call.args),
    }));
    const chunk = new ChatGenerationChunk({
      message: new AIMessageChunk({ id, content: "", tool_call_chunks }),
      text: "",
    });
    yield chunk;
    await runManager?.handleLLMNewToken("", undefined, undefined, undefined, undefined, { chunk });
  }
}
