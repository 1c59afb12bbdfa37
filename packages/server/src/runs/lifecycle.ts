/**
 * A run's states and the moves between them, said once. Every change of a run's status goes
 * through `move`, a compare-and-set on the status it expects, checked against this table.
 *
 *   pending ──claim──▶ running ──▶ success | error | interrupted | timeout
 *      │                 │
 *      │                 └──▶ pending   (thread busy elsewhere, or its process died: queued again)
 *      └──▶ interrupted | error         (cancelled before it started, or storage failed)
 */

import type { Statement } from "../store/db.js";
import type { RunStatus } from "../store/records.js";
import { type MoveExtra, moveRunStatement, type StoreTx } from "../store/store.js";

const TRANSITIONS: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  pending: ["running", "interrupted", "error"],
  running: ["pending", "success", "error", "interrupted", "timeout"],
  success: [],
  error: [],
  interrupted: [],
  timeout: [],
};

/** Queued or executing: the run holds its thread. */
export function isActive(status: RunStatus): boolean {
  return status === "pending" || status === "running";
}

export function canMove(from: RunStatus, to: RunStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/**
 * Moves the run from one of `from` to `to`; false when it was not in one of them (someone else
 * moved it first). A move the table does not allow is a bug, and throws.
 */
export async function move(
  store: StoreTx,
  runId: string,
  from: RunStatus | readonly RunStatus[],
  to: RunStatus,
  extra: MoveExtra = {},
): Promise<boolean> {
  return store.moveRun(runId, checked(from, to), to, extra);
}

/** `move` as a statement, to send along with others (one row back when the run moved). */
export function moveStatement(
  runId: string,
  from: RunStatus | readonly RunStatus[],
  to: RunStatus,
  extra: MoveExtra = {},
): Statement {
  return moveRunStatement(runId, checked(from, to), to, extra);
}

function checked(from: RunStatus | readonly RunStatus[], to: RunStatus): RunStatus[] {
  const sources = typeof from === "string" ? [from] : [...from];
  for (const source of sources)
    if (!canMove(source, to)) throw new Error(`A run cannot move from ${source} to ${to} (runs/lifecycle.ts).`);
  return sources;
}
