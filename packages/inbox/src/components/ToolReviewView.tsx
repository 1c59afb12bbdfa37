/**
 * A LangChain v1 tool-review request: every tool call with the decisions its config allows.
 * The reviewer decides each call (approve, edit its arguments in a form from the tool's
 * schema, or reject with a reason for the model), then sends all decisions as one answer.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { AnswerIssue, DecisionType, ToolDecision } from "../api/types";
import { type Draft, decisionsFrom, editSchema, issuesByCall, type ReviewedCall } from "../domain/tool-review";
import { validateValue } from "../domain/validate";
import { useCommand } from "../state/useCommand";
import { ArgsEditor } from "./ArgsEditor";
import { ArgsList } from "./ArgsList";
import type { AnswerViewProps } from "./answer-view";
import { JsonView } from "./JsonView";
import { Kbd } from "./Kbd";
import { Markdown } from "./Markdown";
import { TextAnswerForm } from "./TextAnswerForm";

interface Props extends AnswerViewProps<{ decisions: ToolDecision[] }> {
  calls: ReviewedCall[];
}

type Mode = "edit" | "reject" | null;

export function ToolReviewView({ formId, calls, busy, issues = [], command, onAnswer }: Props) {
  const [drafts, setDrafts] = useState<Array<Draft | undefined>>(() => calls.map(() => undefined));
  const [modes, setModes] = useState<Mode[]>(() => calls.map(() => null));
  const sendRef = useRef<HTMLButtonElement>(null);
  const server = useMemo(() => issuesByCall(issues, calls.length), [issues, calls.length]);
  const result = decisionsFrom(calls, drafts);
  const undecided = "undecided" in result ? result.undecided : [];

  const setAt = <T,>(list: T[], i: number, value: T) => list.map((x, j) => (j === i ? value : x));
  const decide = (i: number, draft: Draft | undefined) => {
    setDrafts((prev) => setAt(prev, i, draft));
    setModes((prev) => setAt(prev, i, null));
  };
  const open = (i: number, mode: Mode) => setModes((prev) => setAt(prev, i, mode));

  // Keyboard, on the first call still undecided: a approves, e edits, r or i rejects.
  useCommand(command, (c) => {
    const i = undecided[0];
    if (i === undefined || busy) return;
    const wanted: DecisionType = c.action === "accept" ? "approve" : c.action === "edit" ? "edit" : "reject";
    if (!calls[i]!.allowed.includes(wanted)) return;
    if (wanted === "approve") decide(i, { type: "approve" });
    else open(i, wanted);
  });

  useEffect(() => {
    if (undecided.length === 0) sendRef.current?.focus();
  }, [undecided.length]);

  return (
    <div class="tool-review">
      <h2>
        {calls.length === 1 ? "1 tool call" : `${calls.length} tool calls`} <span class="muted">to review</span>
      </h2>
      <ol class="tool-calls" aria-label="Tool calls">
        {calls.map((call, i) => (
          <CallReview
            key={i}
            formId={`${formId}-${i}`}
            call={call}
            draft={drafts[i]}
            mode={modes[i] ?? null}
            busy={busy}
            issues={server.byCall[i] ?? []}
            onOpen={(mode) => open(i, mode)}
            onDecide={(draft) => decide(i, draft)}
          />
        ))}
      </ol>
      {server.other.length > 0 && (
        <ul class="form-errors" role="alert">
          {server.other.map((issue) => (
            <li key={issue.message}>{issue.message}</li>
          ))}
        </ul>
      )}
      <div class="actions send-decisions">
        <button
          ref={sendRef}
          type="button"
          class="primary"
          disabled={busy || "undecided" in result}
          onClick={() => "decisions" in result && onAnswer(result)}
        >
          Send decisions
        </button>
        <span class="muted small" aria-live="polite">
          {undecided.length ? `${undecided.length} of ${calls.length} still to decide` : "All calls decided."}
        </span>
      </div>
    </div>
  );
}

interface CallProps {
  formId: string;
  call: ReviewedCall;
  draft: Draft | undefined;
  mode: Mode;
  busy: boolean;
  issues: readonly AnswerIssue[];
  onOpen: (mode: Mode) => void;
  onDecide: (draft: Draft | undefined) => void;
}

const LABELS: Record<DecisionType, string> = { approve: "Approve", edit: "Edit", reject: "Reject" };
const KEYS: Record<DecisionType, string> = { approve: "a", edit: "e", reject: "r" };
const CLASSES: Record<DecisionType, string> = { approve: "primary", edit: "", reject: "danger" };

function CallReview({ formId, call, draft, mode, busy, issues, onOpen, onDecide }: CallProps) {
  const schema = useMemo(() => editSchema(call), [call]);
  const checkSchema = call.argsSchema ?? { type: "object" };
  return (
    <li class={`tool-call${draft ? ` decided ${draft.type}` : ""}`} aria-labelledby={`${formId}-name`}>
      <h3 id={`${formId}-name`} class="action-name">
        {call.name}
      </h3>
      <p class="allowed muted small">allows {call.allowed.join(", ") || "no decision from the inbox"}</p>
      {call.description && <Markdown text={call.description} />}
      <section aria-label={`Arguments of ${call.name}`} class="args">
        <ArgsList args={call.args} />
      </section>
      {issues.length > 0 && mode !== "edit" && (
        <ul class="form-errors" role="alert">
          {issues.map((issue) => (
            <li key={issue.message}>{issue.message}</li>
          ))}
        </ul>
      )}

      {draft && <DraftSummary draft={draft} busy={busy} onChange={() => onDecide(undefined)} />}

      {!draft && mode === null && (
        <div class="actions" role="group" aria-label={`Decision for ${call.name}`}>
          {call.allowed.map((d) => (
            <button
              key={d}
              type="button"
              class={CLASSES[d]}
              disabled={busy}
              aria-keyshortcuts={KEYS[d]}
              onClick={() => (d === "approve" ? onDecide({ type: "approve" }) : onOpen(d))}
            >
              {LABELS[d]} <Kbd k={KEYS[d]} />
            </button>
          ))}
        </div>
      )}

      {mode === "edit" && (
        <ArgsEditor
          id={`${formId}-edit`}
          action={call.name}
          schema={schema}
          submitLabel="Use these arguments"
          busy={busy}
          issues={issues}
          validate={(args) => validateValue(checkSchema, args)}
          onCancel={() => onOpen(null)}
          onSubmit={(args) => onDecide({ type: "edit", args })}
        />
      )}

      {mode === "reject" && (
        <TextAnswerForm
          id={`${formId}-reason`}
          name={`Reject ${call.name}`}
          label="Why not? (optional; the model reads it)"
          submitLabel="Reject the call"
          busy={busy}
          optional
          danger
          onCancel={() => onOpen(null)}
          onSubmit={(message) => onDecide({ type: "reject", message })}
        />
      )}
    </li>
  );
}

function DraftSummary({ draft, busy, onChange }: { draft: Draft; busy: boolean; onChange: () => void }) {
  return (
    <div class="draft" role="status">
      <strong>{draft.type === "approve" ? "Approved" : draft.type === "edit" ? "Edited" : "Rejected"}</strong>
      {draft.type === "edit" && <JsonView value={draft.args} open={1} label="Edited arguments" />}
      {draft.type === "reject" && draft.message && <q>{draft.message}</q>}
      <button type="button" class="link" disabled={busy} onClick={onChange}>
        Change
      </button>
    </div>
  );
}
