/** An Agent Inbox `HumanInterrupt`: the action, its description, and the answers its config allows. */
import { useMemo, useState } from "preact/hooks";
import type { HumanInterrupt, HumanResponse } from "../api/types";
import { type Action, allowedActions, buildResponse } from "../domain/human-interrupt";
import { schemaFromValue } from "../domain/schema-form";
import { useCommand } from "../state/useCommand";
import { ArgsEditor } from "./ArgsEditor";
import { ArgsList } from "./ArgsList";
import type { AnswerViewProps } from "./answer-view";
import { Kbd } from "./Kbd";
import { Markdown } from "./Markdown";
import { TextAnswerForm } from "./TextAnswerForm";

interface Props extends AnswerViewProps<HumanResponse> {
  hi: HumanInterrupt;
}

const LABELS: Record<Action, string> = { accept: "Accept", edit: "Edit", respond: "Respond", ignore: "Ignore" };
const KEYS: Record<Action, string> = { accept: "a", edit: "e", respond: "r", ignore: "i" };

export function HumanInterruptView({ formId, hi, busy, issues, command, onAnswer }: Props) {
  const allowed = allowedActions(hi);
  const [mode, setMode] = useState<"edit" | "respond" | null>(null);
  const argsSchema = useMemo(() => schemaFromValue(hi.action_request.args ?? {}), [hi]);

  const act = (action: Action) => {
    if (!allowed.includes(action) || busy) return;
    if (action === "accept" || action === "ignore") onAnswer(buildResponse(hi, action));
    else setMode(action === "edit" ? "edit" : "respond");
  };

  useCommand(command, (c) => act(c.action));

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
        <ArgsEditor
          id={`${formId}-edit`}
          action={hi.action_request.action}
          schema={argsSchema}
          submitLabel="Submit edit"
          busy={busy}
          issues={issues}
          onCancel={() => setMode(null)}
          onSubmit={(edited) => onAnswer(buildResponse(hi, "edit", edited))}
        />
      )}

      {mode === "respond" && (
        <TextAnswerForm
          id={`${formId}-response`}
          name="Respond"
          label="Your response"
          submitLabel="Send response"
          busy={busy}
          onCancel={() => setMode(null)}
          onSubmit={(text) => onAnswer(buildResponse(hi, "respond", text))}
        />
      )}
    </div>
  );
}
