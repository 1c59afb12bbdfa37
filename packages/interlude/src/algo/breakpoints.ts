import type { Checkpoint } from "../checkpoint/types.js";
import { INTERRUPT } from "../constants.js";

export type Breakpoints = ReadonlySet<string> | "*";

/** The node list a caller gives (`interruptBefore: ["review"]`, or `"*"`) as the loop reads it. */
export function breakpointsOf(list: readonly string[] | "*" | undefined): Breakpoints | undefined {
  if (list === undefined) return undefined;
  return list === "*" ? "*" : new Set(list);
}

/**
 * A static breakpoint fires when one of `tasks` is named in `nodes` and the state changed
 * since the thread last paused or resumed (so continuing with `invoke(null)` passes it).
 */
export function shouldInterrupt(
  checkpoint: Checkpoint,
  nodes: Breakpoints | undefined,
  tasks: ReadonlyArray<{ readonly name: string }>,
): boolean {
  if (!nodes || (nodes !== "*" && nodes.size === 0)) return false;
  const seen = checkpoint.versions_seen[INTERRUPT] ?? {};
  let changed = false;
  for (const channel in checkpoint.channel_versions) {
    if (checkpoint.channel_versions[channel]! > (seen[channel] ?? 0)) {
      changed = true;
      break;
    }
  }
  if (!changed) return false;
  return tasks.some((task) => nodes === "*" || nodes.has(task.name));
}

/** Records that the thread paused (or resumed) with the current versions. */
export function markInterruptSeen(checkpoint: Checkpoint): void {
  checkpoint.versions_seen[INTERRUPT] = { ...checkpoint.channel_versions };
}
