/** A tool call waiting for review, inline in the conversation: approve, edit its arguments, or reject it. */
import { useState } from "react";
import { type ActionRequest, allowedDecisions, type Decision, parseArgs, type ReviewRequest } from "../domain/review";

interface Props {
  request: ReviewRequest;
  /** Disabled while the answer is being sent. */
  busy: boolean;
  onDecide(decisions: Decision[]): void;
}

function ActionCard(props: {
  action: ActionRequest;
  allowed: Array<Decision["type"]>;
  busy: boolean;
  onDecide(decision: Decision): void;
}) {
  const { action, allowed, busy, onDecide } = props;
  const [mode, setMode] = useState<"view" | "edit" | "reject">("view");
  const [args, setArgs] = useState(() => JSON.stringify(action.args, null, 2));
  const [reason, setReason] = useState("");
  const parsed = parseArgs(args);

  return (
    <div className="action" data-testid="action">
      <div className="action-head">
        Tool call <code>{action.name}</code> waits for your review
      </div>
      {action.description && <div className="action-description">{action.description}</div>}
      {mode === "edit" ? (
        <>
          <textarea
            aria-label="Arguments"
            data-testid="edit-args"
            value={args}
            rows={Math.min(12, args.split("\n").length + 1)}
            onChange={(e) => setArgs(e.target.value)}
          />
          {typeof parsed === "string" && <div className="invalid">{parsed}</div>}
        </>
      ) : (
        <pre className="args">{JSON.stringify(action.args, null, 2)}</pre>
      )}
      {mode === "reject" && (
        <input
          aria-label="Reason"
          data-testid="reject-reason"
          placeholder="Why not? (the model reads this)"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
      )}
      <div className="buttons">
        {mode === "view" && (
          <>
            {allowed.includes("approve") && (
              <button type="button" disabled={busy} onClick={() => onDecide({ type: "approve" })}>
                Approve
              </button>
            )}
            {allowed.includes("edit") && (
              <button type="button" disabled={busy} onClick={() => setMode("edit")}>
                Edit
              </button>
            )}
            {allowed.includes("reject") && (
              <button type="button" className="danger" disabled={busy} onClick={() => setMode("reject")}>
                Reject
              </button>
            )}
          </>
        )}
        {mode === "edit" && (
          <button
            type="button"
            disabled={busy || typeof parsed === "string"}
            onClick={() =>
              typeof parsed !== "string" &&
              onDecide({ type: "edit", editedAction: { name: action.name, args: parsed } })
            }
          >
            Send edited call
          </button>
        )}
        {mode === "reject" && (
          <button
            type="button"
            className="danger"
            disabled={busy}
            onClick={() => onDecide(reason.trim() ? { type: "reject", message: reason.trim() } : { type: "reject" })}
          >
            Confirm rejection
          </button>
        )}
        {mode !== "view" && (
          <button type="button" className="quiet" disabled={busy} onClick={() => setMode("view")}>
            Cancel
          </button>
        )}
      </div>
    </div>
  );
}

/** One decision per action request; the answer goes once every request has one. */
export function ToolReview({ request, busy, onDecide }: Props) {
  const [decided, setDecided] = useState<Array<Decision | undefined>>([]);
  const decide = (index: number, decision: Decision) => {
    const next = [...decided];
    next[index] = decision;
    setDecided(next);
    if (request.actionRequests.every((_, i) => next[i])) onDecide(next as Decision[]);
  };
  return (
    <div className="review" data-testid="review">
      {request.actionRequests.map((action, index) =>
        decided[index] ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the requests are a fixed list, answered by position
          <div key={index} className="action decided">
            {action.name}: {decided[index]!.type}
          </div>
        ) : (
          <ActionCard
            // biome-ignore lint/suspicious/noArrayIndexKey: the requests are a fixed list, answered by position
            key={index}
            action={action}
            allowed={allowedDecisions(request, index)}
            busy={busy}
            onDecide={(d) => decide(index, d)}
          />
        ),
      )}
    </div>
  );
}
