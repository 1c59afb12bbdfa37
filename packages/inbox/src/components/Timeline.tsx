/** The thread's checkpoints, oldest first: what each step wrote, asked, and who answered with what. */

import { formatTime, shortCheckpoint } from "../domain/format";
import { summarizeAnswer, titleOf } from "../domain/human-interrupt";
import { questionsById, type TimelineEntry } from "../domain/timeline";

interface Props {
  entries: TimelineEntry[];
  compare: string[];
  busy: boolean;
  onToggleCompare: (checkpointId: string) => void;
  onReplay: (entry: TimelineEntry) => void;
  onFork: (entry: TimelineEntry) => void;
}

export function Timeline({ entries, compare, busy, onToggleCompare, onReplay, onFork }: Props) {
  const questions = questionsById(entries);
  return (
    <ol class="timeline" aria-label="Checkpoints">
      {entries.map((e) => (
        <li
          key={e.checkpointId}
          class={`tl-entry${e.current ? "" : " other-branch"}${e.head ? " head" : ""}`}
          data-checkpoint={e.checkpointId}
          aria-current={e.head ? "true" : undefined}
        >
          <div class="tl-head">
            <span class="step">step {e.step}</span>
            <span class="badge">{e.source || "?"}</span>
            <code title={e.checkpointId}>{shortCheckpoint(e.checkpointId)}</code>
            {e.head && <span class="badge head-badge">current</span>}
            {!e.current && <span class="badge other">other branch</span>}
            <span class="muted small">{formatTime(e.createdAt)}</span>
          </div>
          <div class="tl-body">
            {(e.wrote.length > 0 || e.changed.length > 0) && (
              <p>
                {e.wrote.length > 0 && (
                  <>
                    <span class="muted">{e.source === "update" ? "edited as" : "ran"}</span>{" "}
                    {e.wrote.map((n) => (
                      <span key={n} class="node-tag">
                        {n === "__start__" ? "input" : n}
                      </span>
                    ))}
                  </>
                )}
                {e.changed.length > 0 && (
                  <>
                    <span class="muted"> changed </span>
                    {e.changed.map((k) => (
                      <code key={k} class="key-tag">
                        {k}
                      </code>
                    ))}
                  </>
                )}
              </p>
            )}
            {e.answers.map((a) => (
              <p key={a.interruptId} class="answer-line">
                <span class="who">{a.by ?? "anonymous"}</span> answered{" "}
                <q>{titleOf(questions.get(a.interruptId)?.value ?? a.interruptId)}</q> with{" "}
                <code class="what">{summarizeAnswer(a.answer)}</code>
                {a.reason ? <span class="muted"> ({a.reason})</span> : null}
                <span class="muted small"> · {formatTime(a.at)}</span>
              </p>
            ))}
            {e.asked.map((q) => (
              <p key={q.id} class="asked-line">
                <span class="muted">asked at</span> <span class="node-tag">{q.node}</span> <q>{titleOf(q.value)}</q>
              </p>
            ))}
            {e.next.length > 0 && e.asked.length === 0 && <p class="muted small">next: {e.next.join(", ")}</p>}
          </div>
          <div class="tl-actions">
            <label class="compare">
              <input
                type="checkbox"
                checked={compare.includes(e.checkpointId)}
                onChange={() => onToggleCompare(e.checkpointId)}
              />{" "}
              compare
            </label>
            <button
              type="button"
              disabled={busy || e.next.length === 0}
              onClick={() => onReplay(e)}
              aria-label={`Replay from step ${e.step}`}
            >
              Replay
            </button>
            <button type="button" disabled={busy} onClick={() => onFork(e)} aria-label={`Fork from step ${e.step}`}>
              Fork…
            </button>
          </div>
        </li>
      ))}
    </ol>
  );
}
