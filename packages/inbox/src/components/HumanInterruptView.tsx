/** An Agent Inbox `HumanInterrupt`: the action, its description, and the answers its config allows. */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { AnswerIssue, HumanInterrupt, HumanResponse } from "../api/types";
import { type Action, allowedActions, buildResponse } from "../domain/human-interrupt";
import { schemaFromValue } from "../domain/schema-form";
import { useCommand } from "../state/useCommand";
import { ArgsList } from "./ArgsList";
import { Kbd } from "./Kbd";
import { Markdown } from "./Markdown";
import { SchemaForm } from "./SchemaForm";

export interface ActionCommand {
  action: Action;
  seq: number;
}

interface Props {
  formId: string;
  hi: HumanInterrupt;
  busy: boolean;
  issues?: readonly AnswerIssue[];
  command?: ActionCommand | undefined;
  onAnswer: (response: HumanResponse) => void;
}

const LABELS: Record<Action, string> = { accept: "Accept", edit: "Edit", respond: "Respond", ignore: "Ignore" };
const KEYS: Record<Action, string> = { accept: "a", edit: "e", respond: "r", ignore: "i" };

export function HumanInterruptView({ formId, hi, busy, issues, command, onAnswer }: Props) {
  const allowed = allowedActions(hi);
  const [mode, setMode] = useState<"edit" | "respond" | null>(null);
  const [response, setResponse] = useState("");
  const responseRef = useRef<HTMLTextAreaElement>(null);
  const argsSchema = useMemo(() => schemaFromValue(hi.action_request.args ?? {}), [hi]);

  const act = (action: Action) => {
    if (!allowed.includes(action) || busy) return;
    if (action === "accept" || action === "ignore") onAnswer(buildResponse(hi, action));
    else setMode(action === "edit" ? "edit" : "respond");
  };

  useCommand(command, (c) => act(c.action));

  useEffect(() => {
    if (mode === "respond") responseRef.current?.focus();
  }, [mode]);

  return (
    <div class="human-interrupt">
      <h2 class="action-name">{hi.action_request.action}</h2>
      {hi.description && <Markdown text={hi.description} />}
      <section aria-label="Arguments" class="args">
        <h3>Arguments</h3>
        <ArgsList args={hi.action_request.args ?? {}} />
      </section>

      {mode === null && (
        <div class="actions" role="group" aria-label="Answer">
          {allowed.map((a) => (
            <button
              key={a}
              type="button"
              class={a === "accept" ? "primary" : a === "ignore" ? "danger" : ""}
              disabled={busy}
              aria-keyshortcuts={KEYS[a]}
              onClick={() => act(a)}
            >
              {LABELS[a]} <Kbd k={KEYS[a]} />
            </button>
          ))}
          {allowed.length === 0 && <p class="muted">This request allows no answer from the inbox.</p>}
        </div>
      )}

      {mode === "edit" && (
        <section aria-label="Edit arguments" class="panel">
          <h3>Edit the arguments</h3>
          <SchemaForm
            id={`${formId}-edit`}
            schema={argsSchema}
            submitLabel="Submit edit"
            focus
            disabled={busy}
            {...(issues ? { issues } : {})}
            onCancel={() => setMode(null)}
            onSubmit={(edited) => onAnswer(buildResponse(hi, "edit", edited as Record<string, unknown>))}
          />
        </section>
      )}

      {mode === "respond" && (
        <form
          class="panel"
          aria-label="Respond"
          onSubmit={(e) => {
            e.preventDefault();
            onAnswer(buildResponse(hi, "respond", response));
          }}
        >
          <label for={`${formId}-response`}>Your response</label>
          <textarea
            id={`${formId}-response`}
            ref={responseRef}
            rows={4}
            value={response}
            onInput={(e) => setResponse(e.currentTarget.value)}
          />
          <div class="actions">
            <button type="submit" class="primary" disabled={busy || response.trim() === ""}>
              Send response
            </button>
            <button type="button" onClick={() => setMode(null)} disabled={busy}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
