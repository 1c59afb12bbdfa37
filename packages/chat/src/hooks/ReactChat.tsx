/**
 * The same page on `useStream` from `@langchain/react` 1.1, which speaks the thread-centric
 * streaming protocol: commands to `POST /threads/:id/commands` (`run.start`, `input.respond`)
 * and events from `POST /threads/:id/stream/events`.
 */
import { useStream } from "@langchain/react";
import { useState } from "react";
import { ChatView } from "../components/ChatView";
import { apiKey, assistantInUrl, putThreadInUrl, threadInUrl } from "../domain/location";
import { toChatMessage } from "../domain/messages";
import { isReviewRequest } from "../domain/review";

export function ReactChat() {
  const [threadId, setThreadId] = useState<string | null>(threadInUrl);
  const stream = useStream({
    apiUrl: window.location.origin,
    apiKey: apiKey(),
    assistantId: assistantInUrl(),
    threadId,
    onThreadId: (id: string) => {
      setThreadId(id);
      putThreadInUrl(id);
    },
  });
  const interrupt = stream.interrupt as
    | { id?: string; interruptId?: string; value?: unknown; payload?: unknown }
    | undefined;
  const value = interrupt?.value ?? interrupt?.payload;
  const review = isReviewRequest(value) ? value : undefined;
  return (
    <ChatView
      hookName="@langchain/react"
      threadId={threadId}
      messages={(stream.messages as unknown[]).map(toChatMessage)}
      isLoading={stream.isLoading}
      review={review}
      reviewKey={interrupt?.id ?? interrupt?.interruptId ?? "review"}
      error={stream.error}
      onSend={(text) => void stream.submit({ messages: [{ type: "human", content: text }] })}
      onDecide={(decisions) => void stream.respond({ decisions })}
      onNewThread={() => {
        setThreadId(null);
        putThreadInUrl(null);
      }}
    />
  );
}
