/** The timeline with what a reviewer does to it: compare two checkpoints, fork from one, replay from one. */
import { useState } from "preact/hooks";
import type { TimelineEntry } from "../domain/timeline";
import { ForkEditor } from "./ForkEditor";
import { StateDiff } from "./StateDiff";
import { Timeline } from "./Timeline";

interface Props {
  entries: TimelineEntry[];
  busy: boolean;
  error?: string | undefined;
  onReplay: (entry: TimelineEntry) => void;
  /** Resolves true once the fork is made, which closes the editor. */
  onFork: (entry: TimelineEntry, values: unknown, run: boolean) => Promise<boolean>;
}

/** The two checkpoints ticked, oldest first, once there are two. */
function comparedPair(entries: TimelineEntry[], ids: string[]): [TimelineEntry, TimelineEntry] | undefined {
  const pair = entries.filter((e) => ids.includes(e.checkpointId));
  return pair.length === 2 ? [pair[0]!, pair[1]!] : undefined;
}

export function TimelinePanel({ entries, busy, error, onReplay, onFork }: Props) {
  const [compare, setCompare] = useState<string[]>([]);
  const [forking, setForking] = useState<TimelineEntry>();
  const pair = comparedPair(entries, compare);
  const toggle = (id: string) =>
    setCompare((prev) => (prev.includes(id) ? prev.filter((x) => x !== id) : [...prev.slice(-1), id]));
  const fork = async (values: unknown, run: boolean) => {
    if (forking && (await onFork(forking, values, run))) setForking(undefined);
  };

  return (
    <section class="panel" aria-labelledby="timeline-title">
      <div class="panel-head">
        <h2 id="timeline-title">Timeline</h2>
        <span class="muted small">{compare.length < 2 ? "Tick two checkpoints to compare them." : ""}</span>
      </div>
      {pair && <StateDiff from={pair[0]} to={pair[1]} onClose={() => setCompare([])} />}
      {forking && (
        <ForkEditor entry={forking} busy={busy} error={error} onFork={fork} onCancel={() => setForking(undefined)} />
      )}
      <Timeline
        entries={entries}
        compare={compare}
        busy={busy}
        onToggleCompare={toggle}
        onReplay={onReplay}
        onFork={setForking}
      />
    </section>
  );
}
