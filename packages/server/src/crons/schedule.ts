/** A cron's schedule: standard cron syntax read by croner, in UTC unless a timezone is given. */
import { Cron } from "croner";
import { InvalidRequestError } from "../errors.js";

/** The schedule, checked; refused (422) with croner's reason when it cannot be read. */
export function checkSchedule(schedule: string, timezone: string | null | undefined): void {
  try {
    new Cron(schedule, { timezone: timezone ?? undefined, paused: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidRequestError(
      timezone ? "schedule/timezone" : "schedule",
      `cannot be read (${reason}): give a cron schedule such as "*/5 * * * *" and an IANA timezone such as "Europe/Paris".`,
    );
  }
}

/** When the schedule next comes after `afterMs` (ms since the epoch), before `endTime` (ISO); null if never. */
export function nextRun(
  schedule: string,
  timezone: string | null | undefined,
  afterMs: number,
  endTime: string | null | undefined,
): string | null {
  const next = new Cron(schedule, { timezone: timezone ?? undefined, paused: true }).nextRun(new Date(afterMs));
  if (!next) return null;
  if (endTime && next.getTime() > Date.parse(endTime)) return null;
  return next.toISOString();
}
