/** A thread's current state: its conversation when it holds `messages`, else (or on request) the raw JSON. */
import { useMemo, useState } from "preact/hooks";
import { conversationOf } from "../domain/conversation";
import { Conversation } from "./Conversation";
import { JsonView } from "./JsonView";

export function StatePanel({ values }: { values: unknown }) {
  const conversation = useMemo(() => conversationOf(values), [values]);
  const [raw, setRaw] = useState(false);
  return (
    <section class="panel" aria-labelledby="state-title">
      <div class="panel-head">
        <h2 id="state-title">{conversation && !raw ? "Conversation" : "Current state"}</h2>
        {conversation && (
          <button type="button" class="link" aria-pressed={raw} onClick={() => setRaw(!raw)}>
            {raw ? "Show the conversation" : "Show raw JSON"}
          </button>
        )}
      </div>
      {conversation && !raw ? (
        <Conversation messages={conversation} />
      ) : (
        <JsonView value={values} label="Current state" />
      )}
    </section>
  );
}
