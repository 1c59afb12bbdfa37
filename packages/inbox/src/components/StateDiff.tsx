/** The state changes between two checkpoints. */
import { diffValues } from "../domain/diff";
import { compactJson, shortCheckpoint } from "../domain/format";
import type { TimelineEntry } from "../domain/timeline";

export function StateDiff({ from, to, onClose }: { from: TimelineEntry; to: TimelineEntry; onClose: () => void }) {
  const changes = diffValues(from.values, to.values);
  return (
    <section class="panel diff" aria-label="State diff">
      <div class="panel-head">
        <h3>
          Diff: step {from.step} <code>{shortCheckpoint(from.checkpointId)}</code> → step {to.step}{" "}
          <code>{shortCheckpoint(to.checkpointId)}</code>
        </h3>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {changes.length === 0 ? (
        <p class="muted">The state is the same.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Path</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((c) => (
              <tr key={c.path} class={`change ${c.kind}`}>
                <th scope="row">
                  <code>{c.path}</code> <span class="muted small">{c.kind}</span>
                </th>
                <td class="before">{"before" in c ? <code>{compactJson(c.before, 200)}</code> : null}</td>
                <td class="after">{"after" in c ? <code>{compactJson(c.after, 200)}</code> : null}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
