/**
 * The page on `useStream` from `@langchain/langgraph-sdk/react`: it creates the thread, streams
 * runs (`runs.stream`), keeps the run id in sessionStorage (`reconnectOnMount`) so a reload joins
 * the running stream (`joinStream`), and loads the thread's history for a thread in the URL.
 */
import { useStream } from "@langchain/langgraph-sdk/react";
import { useState } from "react";
import { ChatView } from "../components/ChatView";
import { apiKey, assistantInUrl, putThreadInUrl, threadInUrl } from "../domain/location";
import { toChatMessage } from "../domain/messages";
import { isReviewRequest } from "../domain/review";

export function SdkChat() {
  const [threadId, setThreadId] = useState<string | null>(threadInUrl);
  const stream = useStream<{ messages: unknown[] }>({
    apiUrl: window.location.origin,
    apiKey: apiKey(),
    assistantId: assistantInUrl(),
    messagesKey: "messages",
    threadId,
    onThreadId: (id) => {
      setThreadId(id);
      putThreadInUrl(id);
    },
    reconnectOnMount: true,
    fetchStateHistory: true,
  });
  const interrupt = stream.interrupt;
  const review = isReviewRequest(interrupt?.value) ? interrupt.value : undefined;
  return (
    <ChatView
      hookName="@langchain/langgraph-sdk/react"
      threadId={threadId}
      messages={stream.messages.map(toChatMessage)}
      isLoading={stream.isLoading}
      review={review}
      reviewKey={interrupt?.id ?? "review"}
      error={stream.error}
      onSend={(text) =>
        void stream.submit(
          { messages: [{ type: "human", content: text }] },
          {
            optimisticValues: (prev) => ({
              ...prev,
              messages: [...((prev.messages as unknown[]) ?? []), { type: "human", content: text }],
            }),
          },
        )
      }
      onDecide={(decisions) => void stream.submit(null, { command: { resume: { decisions } } })}
      onNewThread={() => {
        setThreadId(null);
        putThreadInUrl(null);
      }}
    />
  );
}
