/** The conversation, whichever hook feeds it: messages, a pending review inline, the composer. */
import { type FormEvent, useEffect, useRef, useState } from "react";
import type { ChatMessage } from "../domain/messages";
import type { Decision, ReviewRequest } from "../domain/review";
import { ToolReview } from "./ToolReview";

export interface ChatViewProps {
  hookName: string;
  threadId: string | null;
  messages: ChatMessage[];
  isLoading: boolean;
  review: ReviewRequest | undefined;
  /** The pending interrupt's id: a new one gets a fresh review form. */
  reviewKey: string;
  error: unknown;
  onSend(text: string): void;
  onDecide(decisions: Decision[]): void;
  onNewThread(): void;
}

function Bubble({ message }: { message: ChatMessage }) {
  return (
    <div className={`bubble ${message.role}`} data-testid="message" data-role={message.role}>
      {message.role === "tool" && (
        <div className="label">Tool result{message.status === "error" ? " (not run)" : ""}</div>
      )}
      {message.text && <div className="text">{message.text}</div>}
      {message.toolCalls.map((call, i) => (
        <div key={call.id ?? i} className="tool-call" data-testid="tool-call">
          calls <code>{call.name}</code> <code className="args-inline">{JSON.stringify(call.args)}</code>
        </div>
      ))}
    </div>
  );
}

export function ChatView(props: ChatViewProps) {
  const { messages, isLoading, review, error } = props;
  const [draft, setDraft] = useState("");
  const end = useRef<HTMLDivElement>(null);
  // After every render: new messages and tokens keep the end in view.
  useEffect(() => {
    // Braces: newer browsers return a promise from scrollIntoView, and React takes a returned value for a cleanup.
    void end.current?.scrollIntoView({ block: "end" });
  });

  const send = (e: FormEvent) => {
    e.preventDefault();
    const text = draft.trim();
    if (!text || isLoading) return;
    setDraft("");
    props.onSend(text);
  };

  return (
    <div className="chat">
      <header>
        <h1>Interlude Chat</h1>
        <span className="hook" data-testid="hook">
          {props.hookName}
        </span>
        <span className="thread" data-testid="thread">
          {props.threadId ? `thread ${props.threadId}` : "new thread"}
        </span>
        <button type="button" className="quiet" onClick={props.onNewThread}>
          New thread
        </button>
      </header>
      <main data-testid="messages" aria-busy={isLoading}>
        {messages.length === 0 && !isLoading && (
          <p className="empty">Say something, or ask me to send an email to see a tool call wait for your review.</p>
        )}
        {messages.map((m) => (
          <Bubble key={m.id} message={m} />
        ))}
        {review && <ToolReview key={props.reviewKey} request={review} busy={isLoading} onDecide={props.onDecide} />}
        {isLoading && !review && (
          <div className="typing" data-testid="streaming">
            streaming…
          </div>
        )}
        {error != null && (
          <div className="error" role="alert">
            {error instanceof Error ? error.message : String(error)}
          </div>
        )}
        <div ref={end} />
      </main>
      <form onSubmit={send}>
        <input
          aria-label="Message"
          placeholder={review ? "Answer the review above first" : "Message the agent"}
          value={draft}
          disabled={!!review}
          onChange={(e) => setDraft(e.target.value)}
        />
        <button type="submit" disabled={isLoading || !!review || !draft.trim()}>
          Send
        </button>
      </form>
    </div>
  );
}
