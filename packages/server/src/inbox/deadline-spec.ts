/**
 * Interrupt deadlines, declared in the interrupt's payload (the core's `interrupt()` has no
 * timeout yet): `interrupt({ ..., timeout_seconds: 3600, on_timeout: { resume: answer } })`
 * answers with `answer` when nobody did in time (recorded as by "deadline");
 * `on_timeout: { error: "reason" }` (the default) marks the thread as errored with the reason.
 */
type OnTimeout = { resume: unknown } | { error: string };

export interface DeadlineSpec {
  timeout_seconds: number;
  on_timeout: OnTimeout;
}

export const DEADLINE_IDENTITY = "deadline";

export function deadlineOf(value: unknown): DeadlineSpec | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { timeout_seconds, on_timeout } = value as { timeout_seconds?: unknown; on_timeout?: unknown };
  if (typeof timeout_seconds !== "number" || !(timeout_seconds > 0)) return undefined;
  const action = on_timeout as Record<string, unknown> | undefined;
  if (action && typeof action === "object" && "resume" in action)
    return { timeout_seconds, on_timeout: { resume: action.resume } };
  const reason = action && typeof action.error === "string" ? action.error : `No answer within ${timeout_seconds} s.`;
  return { timeout_seconds, on_timeout: { error: reason } };
}
