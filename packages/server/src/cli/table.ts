/** Plain-text tables for the terminal: aligned columns, long cells cut with an ellipsis. */
export function table(
  headers: string[],
  rows: Array<Array<string | number | null | undefined>>,
  maxWidth = 60,
): string {
  const cells = rows.map((r) => r.map((c) => cut(c === null || c === undefined ? "" : String(c), maxWidth)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]?.length ?? 0)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(headers), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}

function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function age(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "";
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** A one-line summary of an interrupt payload (Agent Inbox's HumanInterrupt gets its action). */
export function summary(value: unknown): string {
  const v = value as { action_request?: { action?: string; args?: unknown }; description?: string } | null;
  if (v && typeof v === "object" && v.action_request)
    return `${v.action_request.action ?? "?"} ${JSON.stringify(v.action_request.args ?? {})}`;
  return JSON.stringify(value) ?? "";
}
