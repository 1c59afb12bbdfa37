// Types of scripted-model.mjs, for the TypeScript tests that import it.
import type { BaseChatModelCallOptions } from "@langchain/core/language_models/chat_models";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessage, AIMessageChunk, BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";

export type Script = (messages: BaseMessage[]) => AIMessage;

export declare class ScriptedChatModel extends BaseChatModel<BaseChatModelCallOptions, AIMessageChunk> {
  constructor(script: Script);
  readonly script: Script;
  toolNames?: string[];
  _llmType(): string;
  bindTools(tools: Array<{ name: string }>): ScriptedChatModel;
  _generate(messages: BaseMessage[]): Promise<ChatResult>;
}

/** The email assistant's script: propose one send_email call, then report what the tool said. */
export declare function emailScript(messages: BaseMessage[]): AIMessage;
