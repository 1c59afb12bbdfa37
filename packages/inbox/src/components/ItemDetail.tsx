/** One pending interrupt, with the way to answer it and what happened to it. */
import { useEffect, useMemo, useState } from "preact/hooks";
import type { Api } from "../api/client";
import { AlreadyAnsweredError, InvalidAnswerError } from "../api/errors";
import type { AnswerIssue, InboxItem, Resolution } from "../api/types";
import { formatAge, formatTime } from "../domain/format";
import { asHumanInterrupt, summarizeAnswer } from "../domain/human-interrupt";
import { asToolReview } from "../domain/tool-review";
import { threadHref } from "../state/route";
import { useCommand } from "../state/useCommand";
import type { ActionCommand, AnswerViewProps } from "./answer-view";
import { HumanInterruptView } from "./HumanInterruptView";
import { JsonView } from "./JsonView";
import { SchemaForm } from "./SchemaForm";
import { ToolReviewView } from "./ToolReviewView";

interface Props {
  api: Api;
  item: InboxItem;
  /** Set when the event stream says someone else answered this item. */
  resolvedElsewhere?: Resolution | undefined;
  command?: ActionCommand | undefined;
  onAnswered: (item: InboxItem, answer: unknown, queued: boolean) => void;
}

export function ItemDetail({ api, item, resolvedElsewhere, command, onAnswered }: Props) {
  const [busy, setBusy] = useState(false);
  const [issues, setIssues] = useState<readonly AnswerIssue[]>([]);
  const [conflict, setConflict] = useState<Resolution>();
  const [error, setError] = useState<string>();
  const hi = asHumanInterrupt(item.value);
  const review = useMemo(() => (hi ? undefined : asToolReview(item.value)), [item.value]);
  const formId = `f-${item.interrupt_id}`.replace(/[^\w-]/g, "_");

  useEffect(() => {
    setBusy(false);
    setIssues([]);
    setConflict(undefined);
    setError(undefined);
  }, [item.thread_id, item.interrupt_id]);

  const send = async (answer: unknown) => {
    setBusy(true);
    setError(undefined);
    try {
      const taken = await api.answer(item.thread_id, item.interrupt_id, answer);
      setIssues([]);
      onAnswered(item, answer, taken?.status === "queued");
    } catch (e) {
      if (e instanceof AlreadyAnsweredError) setConflict(e.resolution);
      else if (e instanceof InvalidAnswerError) setIssues(e.issues);
      else setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const answered = conflict ?? resolvedElsewhere;
  const answerProps = {
    formId,
    busy: busy || !!answered,
    issues,
    command: answered ? undefined : command,
    onAnswer: send,
  };
  return (
    <article class="detail" aria-labelledby={`${formId}-title`}>
      <header class="detail-head">
        <p id={`${formId}-title`} class="crumbs">
          <span class="badge">{item.graph_id}</span> thread <a href={threadHref(item.thread_id)}>{item.thread_id}</a>
        </p>
        <p class="muted small">
          waiting {formatAge(item.age_seconds)} · interrupt <code>{item.interrupt_id}</code>
          {item.ns ? (
            <>
              {" "}
              · at <code>{Array.isArray(item.ns) ? item.ns.join(" / ") : item.ns}</code>
            </>
          ) : null}
        </p>
      </header>

      {answered && <AnsweredBanner resolution={answered} />}
      {error && (
        <p class="banner error" role="alert">
          {error}
        </p>
      )}

      <fieldset class="answer-area" disabled={!!answered}>
        <legend class="sr-only">Answer</legend>
        {hi ? (
          <HumanInterruptView hi={hi} {...answerProps} />
        ) : review ? (
          <ToolReviewView calls={review} {...answerProps} />
        ) : (
          <PlainInterrupt item={item} {...answerProps} />
        )}
      </fieldset>
    </article>
  );
}

function AnsweredBanner({ resolution: r }: { resolution: Resolution }) {
  // The server reports an interrupt that went away unanswered (thread edited, deleted or failed) with no `by`.
  if (r.by == null && r.answer == null) {
    return (
      <div class="banner warn" role="alert">
        <strong>No longer pending</strong>: the thread changed and this question went away unanswered.
      </div>
    );
  }
  return (
    <div class="banner warn" role="alert">
      <strong>Already answered</strong> by <span class="who">{r.by ?? "someone"}</span> with{" "}
      <code class="what">{summarizeAnswer(r.answer)}</code>
      {r.at ? <> at {formatTime(r.at)}</> : null}. Nothing more was applied.
    </div>
  );
}

interface PlainProps extends AnswerViewProps<unknown> {
  item: InboxItem;
}

/** Any other payload: readable JSON, and a form from the answer's schema (or a JSON box). */
function PlainInterrupt({ formId, item, busy, issues, command, onAnswer }: PlainProps) {
  const schema = item.response_schema ?? {};
  const [focusSeq, setFocusSeq] = useState(0);
  useCommand(command, (c) => {
    if (c.action !== "ignore") setFocusSeq(c.seq);
  });
  return (
    <div class="plain-interrupt">
      <section aria-label="Question" class="question">
        <h2>{typeof item.value === "string" ? item.value : "Question"}</h2>
        {typeof item.value !== "string" && <JsonView value={item.value} label="Interrupt payload" />}
      </section>
      <section aria-label="Your answer" class="panel">
        <h3>Your answer</h3>
        <SchemaForm
          id={`${formId}-answer`}
          schema={schema}
          submitLabel="Submit answer"
          disabled={busy}
          issues={issues}
          focus={focusSeq}
          onSubmit={onAnswer}
        />
      </section>
    </div>
  );
}
