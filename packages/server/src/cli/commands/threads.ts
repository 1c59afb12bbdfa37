/** `interlude threads`, `pending`, `history`: read-only views as tables. */
import { age, summary, table } from "../table.js";
import type { Target } from "../target.js";

export async function threads(target: Target, flags: { status?: string; limit: string }): Promise<string> {
  const list = await target.json<any[]>("/threads/search", {
    method: "POST",
    body: { status: flags.status, limit: Number(flags.limit), sort_by: "updated_at", sort_order: "desc" },
  });
  if (!list.length) return "No threads.";
  const rows = list.map((t) => [
    t.thread_id,
    t.metadata?.graph_id ?? "",
    t.status,
    Object.values(t.interrupts ?? {}).flat().length || "",
    age(t.updated_at),
  ]);
  return table(["THREAD", "GRAPH", "STATUS", "PENDING", "UPDATED"], rows);
}

export async function pending(target: Target, flags: { graph?: string; limit: string; q?: string }): Promise<string> {
  const params = new URLSearchParams({ limit: flags.limit });
  if (flags.graph) params.set("graph_id", flags.graph);
  if (flags.q) params.set("q", flags.q);
  const { items, total } = await target.json<{ items: any[]; total: number }>(`/inbox/interrupts?${params}`);
  if (!items.length) return "Nothing is waiting for an answer.";
  const rows = items.map((i) => [i.thread_id, i.interrupt_id, i.graph_id, age(i.created_at), summary(i.value)]);
  return `${table(["THREAD", "INTERRUPT", "GRAPH", "AGE", "QUESTION"], rows)}\n${items.length} of ${total} waiting.`;
}

export async function history(target: Target, threadId: string, flags: { limit: string }): Promise<string> {
  const states = await target.json<any[]>(`/threads/${encodeURIComponent(threadId)}/history`, {
    method: "POST",
    body: { limit: Number(flags.limit) },
  });
  if (!states.length) return `Thread ${threadId} has no checkpoints.`;
  const rows = states.map((s) => {
    const answers = ((s.metadata?.resume as any[]) ?? [])
      .map((r) => `${r.by ?? "?"}: ${JSON.stringify(Object.values(r.answers ?? {})[0])}`)
      .join("; ");
    const asked = (s.interrupts as any[]).length ? `asks ${summary(s.interrupts[0].value)}` : "";
    return [
      s.metadata?.step,
      s.metadata?.source,
      s.checkpoint?.checkpoint_id,
      (s.next as string[]).join(",") || "(end)",
      age(s.created_at),
      answers || asked,
    ];
  });
  return table(["STEP", "SOURCE", "CHECKPOINT", "NEXT", "AGE", "ANSWERS / QUESTION"], rows);
}
