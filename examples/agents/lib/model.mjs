// The chat model of the example: a real provider when its API key is set (loaded only then, it is
// not a dependency of Interlude), else the offline script.
import { emailScript, ScriptedChatModel } from "./scripted-model.mjs";

export async function chatModel() {
  if (process.env.OPENAI_API_KEY) {
    const { ChatOpenAI } = await import("@langchain/openai");
    return new ChatOpenAI({ model: process.env.OPENAI_MODEL ?? "gpt-4o-mini", temperature: 0 });
  }
  if (process.env.ANTHROPIC_API_KEY) {
    const { ChatAnthropic } = await import("@langchain/anthropic");
    return new ChatAnthropic({ model: process.env.ANTHROPIC_MODEL ?? "claude-3-5-haiku-latest", temperature: 0 });
  }
  return new ScriptedChatModel(emailScript);
}
