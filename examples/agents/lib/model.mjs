// The chat model of the examples: a real provider when its API key is set (loaded only then, it is
// not a dependency of Interlude), else the offline script (`offline()`, the email script by default).
import { emailScript, ScriptedChatModel } from "./scripted-model.mjs";

async function provider(pkg, key) {
  try {
    return await import(pkg);
  } catch {
    throw new Error(`${key} is set, so the example uses ${pkg}; install it (npm install ${pkg}) or unset ${key}.`);
  }
}

export async function chatModel(offline = () => new ScriptedChatModel(emailScript)) {
  if (process.env.OPENAI_API_KEY) {
    const { ChatOpenAI } = await provider("@langchain/openai", "OPENAI_API_KEY");
    return new ChatOpenAI({ model: process.env.OPENAI_MODEL ?? "gpt-4o-mini", temperature: 0 });
  }
  if (process.env.ANTHROPIC_API_KEY) {
    const { ChatAnthropic } = await provider("@langchain/anthropic", "ANTHROPIC_API_KEY");
    return new ChatAnthropic({ model: process.env.ANTHROPIC_MODEL ?? "claude-3-5-haiku-latest", temperature: 0 });
  }
  return offline();
}
