// A chat model that answers from a script instead of a provider: offline, deterministic, and the
// same in every process (it looks at the conversation, not at how often it was called).
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage } from "@langchain/core/messages";

export class ScriptedChatModel extends BaseChatModel {
  /** @param {(messages: import("@langchain/core/messages").BaseMessage[]) => AIMessage} script */
  constructor(script) {
    super({});
    this.script = script;
  }

  _llmType() {
    return "scripted";
  }

  bindTools(tools) {
    const bound = new ScriptedChatModel(this.script);
    bound.toolNames = tools.map((t) => t.name);
    return bound;
  }

  async _generate(messages) {
    const message = this.script(messages);
    return { generations: [{ message, text: typeof message.content === "string" ? message.content : "" }] };
  }
}

/** The email assistant's script: propose one send_email call, then report what the tool said. */
export function emailScript(messages) {
  const last = messages.at(-1);
  if (last.getType() === "tool") {
    const outcome = last.status === "error" ? `Not sent: ${last.content}` : `Done: ${last.content}`;
    return new AIMessage(outcome);
  }
  return new AIMessage({
    content: "",
    tool_calls: [
      {
        name: "send_email",
        args: { to: "bob@example.com", subject: "Lunch", body: `Re: ${last.content}` },
        id: "call_1",
        type: "tool_call",
      },
    ],
  });
}
