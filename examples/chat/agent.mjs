/**
 * The chat page's sample agent (graph `agent` of examples/approval/langgraph.json, served by
 * `npm start`): a tool-using agent whose send_email calls wait for a human's review (LangChain
 * v1's humanInTheLoopMiddleware protocol), with the offline streaming model unless
 * OPENAI_API_KEY or ANTHROPIC_API_KEY is set. CHAT_SEND_LOG names a file each real send is
 * appended to (one JSON line), so a test can count sends; CHAT_TOKEN_DELAY_MS paces the
 * offline model's chunks (default 60 ms).
 */
import { buildAgent } from "../agents/lib/agent.mjs";
import { sendEmailTool } from "../agents/lib/email-tool.mjs";
import { chatModel } from "../agents/lib/model.mjs";
import { chatScript } from "./lib/chat-script.mjs";
import { StreamingScriptedModel } from "./lib/streaming-model.mjs";

const delayMs = Number(process.env.CHAT_TOKEN_DELAY_MS ?? 60);

export const graph = buildAgent({
  model: await chatModel(() => new StreamingScriptedModel(chatScript, { delayMs })),
  tools: [sendEmailTool(process.env.CHAT_SEND_LOG)],
});
