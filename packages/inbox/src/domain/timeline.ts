/** A thread's history (newest first, as the server lists it) as a timeline to read top-down. */
import type { ThreadState } from "../api/types";
import { diffValues } from "./diff";

export interface AskedInterrupt {
  id: string;
  node: string;
  value: unknown;
}

interface GivenAnswer {
  interruptId: string;
  answer: unknown;
  by?: string;
  at: string;
  reason?: string;
}

export interface TimelineEntry {
  checkpointId: string;
  parentId?: string;
  step: number;
  source: string;
  createdAt?: string;
  next: string[];
  /** Nodes whose updates produced this checkpoint (recorded, or else the parent's `next`). */
  wrote: string[];
  /** Top-level state keys that differ from the parent checkpoint's. */
  changed: string[];
  /** Interrupts pending at this checkpoint. */
  asked: AskedInterrupt[];
  /** Answers applied by the run that produced this checkpoint. */
  answers: GivenAnswer[];
  values: unknown;
  /** On the path from the thread's first checkpoint to its current one (not an abandoned branch). */
  current: boolean;
  head: boolean;
}

function interruptIdOf(i: { id?: string; interrupt_id?: string }): string {
  return i.id ?? i.interrupt_id ?? "";
}

export function buildTimeline(history: ThreadState[], headId?: string): TimelineEntry[] {
  const parents = new Map(
    history.map((s) => [s.checkpoint.checkpoint_id, s.parent_checkpoint?.checkpoint_id ?? undefined]),
  );
  const onBranch = new Set<string>();
  for (
    let id: string | null | undefined = headId ?? history[0]?.checkpoint.checkpoint_id;
    id && !onBranch.has(id);
    id = parents.get(id)
  ) {
    onBranch.add(id);
  }
  const entries = history.map((s): TimelineEntry => {
    const id = s.checkpoint.checkpoint_id ?? "";
    const meta = s.metadata ?? {};
    const entry: TimelineEntry = {
      checkpointId: id,
      step: typeof meta.step === "number" ? meta.step : -1,
      source: typeof meta.source === "string" ? meta.source : "",
      next: s.next ?? [],
      wrote: meta.writes ? Object.keys(meta.writes) : [],
      changed: [],
      asked: (s.tasks ?? []).flatMap((t) =>
        (t.interrupts ?? []).map((i) => ({ id: interruptIdOf(i), node: t.name, value: i.value })),
      ),
      answers: (meta.resume ?? []).flatMap((r) =>
        Object.entries(r.answers ?? {}).map(([interruptId, answer]) => ({
          interruptId,
          answer,
          at: r.at,
          ...(r.by !== undefined ? { by: r.by } : {}),
          ...(r.reason !== undefined ? { reason: r.reason } : {}),
        })),
      ),
      values: s.values,
      current: onBranch.has(id),
      head: id === (headId ?? history[0]?.checkpoint.checkpoint_id),
    };
    const parent = s.parent_checkpoint?.checkpoint_id;
    if (parent) entry.parentId = parent;
    if (s.created_at) entry.createdAt = s.created_at;
    return entry;
  });
  const byId = new Map(history.map((s) => [s.checkpoint.checkpoint_id, s]));
  for (const e of entries) {
    const parent = e.parentId ? byId.get(e.parentId) : undefined;
    if (!parent) continue;
    if (!e.wrote.length && e.source === "loop") e.wrote = parent.next ?? [];
    e.changed = [...new Set(diffValues(parent.values, e.values).map((c) => c.path.split(/[.[]/)[0]!))];
  }
  return entries.reverse();
}

/** interrupt id -> the question it asked, from every checkpoint where it was pending. */
export function questionsById(entries: TimelineEntry[]): Map<string, AskedInterrupt> {
  return new Map(entries.flatMap((e) => e.asked.map((a) => [a.id, a] as const)));
}
