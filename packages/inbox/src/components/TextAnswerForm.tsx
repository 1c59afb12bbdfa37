/** A few words from the reviewer: an Agent Inbox response, or why a tool call is rejected. */
import { useEffect, useRef, useState } from "preact/hooks";
import { submitted } from "./form-parts";

interface Props {
  id: string;
  /** The form's accessible name. */
  name: string;
  label: string;
  submitLabel: string;
  busy: boolean;
  /** An empty text may be sent (the answer has a default). */
  optional?: boolean;
  danger?: boolean;
  onSubmit: (text: string) => void;
  onCancel: () => void;
}

export function TextAnswerForm({ id, name, label, submitLabel, busy, optional, danger, onSubmit, onCancel }: Props) {
  const [text, setText] = useState("");
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <form class="panel" aria-label={name} onSubmit={submitted(() => onSubmit(text))}>
      <label for={id}>{label}</label>
      <textarea id={id} ref={ref} rows={4} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      <div class="actions">
        <button
          type="submit"
          class={danger ? "danger" : "primary"}
          disabled={busy || (!optional && text.trim() === "")}
        >
          {submitLabel}
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
