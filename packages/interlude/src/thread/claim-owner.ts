/**
 * Claim owners name where they run (`host/pid/uuid`), so that a claim left by a process that
 * died on this machine is taken over at once instead of blocking its thread for the claim's
 * whole TTL. A claim from another machine, or whose process may be alive, is left to lapse.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

const HOST = hostname();

export function newClaimOwner(): string {
  return `${HOST}/${process.pid}/${randomUUID()}`;
}

/** True only when `owner` ran on this machine in a process that no longer exists. */
export function isDeadOwner(owner: string): boolean {
  const [host, pidText, id] = owner.split("/");
  if (host !== HOST || id === undefined) return false;
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0); // signal 0: only asks whether the process exists
    return false;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
