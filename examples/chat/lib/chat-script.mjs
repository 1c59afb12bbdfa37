// What the offline model says on the chat page: asked to send an email, it proposes a send_email
// call (which waits for the reviewer); told what the tool did, it reports it; otherwise it explains
// itself at some length, so the answer streams in visibly.
import { AIMessage } from "@langchain/core/messages";

const ADDRESS = /[\w.+-]+@[\w-]+(\.[\w-]+)+/;

function textOf(message) {
  return typeof message.content === "string"
    ? message.content
    : message.content.map((part) => (typeof part === "string" ? part : (part.text ?? ""))).join("");
}

export function chatScript(messages) {
  const last = messages.at(-1);
  if (last.getType() === "tool") {
    return new AIMessage(
      last.status === "error"
        ? `Not sent: ${textOf(last)} Tell me if you want something else.`
        : `Done: ${textOf(last)} Anything else?`,
    );
  }
  const request = textOf(last);
  if (/\b(e-?mail|mail|send)\b/i.test(request)) {
    const to = request.match(ADDRESS)?.[0] ?? "bob@example.com";
    return new AIMessage({
      content: `I will send an email to ${to}. It waits for your review before it goes out.`,
      tool_calls: [
        {
          name: "send_email",
          args: { to, subject: "Hello", body: request },
          id: `call_${messages.length}`,
          type: "tool_call",
        },
      ],
    });
  }
  return new AIMessage(
    `You wrote: "${request}". I am a scripted model that runs offline, so this answer comes from a ` +
      "script, a few words at a time, the way a real model streams its tokens. Set OPENAI_API_KEY or " +
      "ANTHROPIC_API_KEY before npm start to talk to a real one. Ask me to send an email (for example: " +
      "send an email to carol@example.com) and the call to the send_email tool waits for you to approve, " +
      "edit or reject it before it runs.",
  );
}
