/** Short human readings of times and ids. */
export function formatAge(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

export function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

/**
 * Checkpoint ids are time-ordered UUIDs: neighbours share the leading time bits and the
 * trailing node bits, and differ in between, so that is the part shown.
 */
export function shortCheckpoint(id: string): string {
  const parts = id.split("-");
  if (parts.length !== 5) return shortId(id);
  return `${parts[0]!.slice(-4)}-${parts[1]}-${parts[2]}-${parts[3]}`;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

export function compactJson(value: unknown, max = 120): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
