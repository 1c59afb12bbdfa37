import type { PreparedTask } from "../algo/tasks.js";
import type { Write } from "../algo/writes.js";
import type { GivenAnswer, StoredInterrupt, TaskCallRecord } from "../interrupt/record.js";

/** How one task of a step ended. */
export type TaskOutcome =
  | { kind: "done"; task: PreparedTask; writes: Write[]; output: unknown }
  | {
      kind: "interrupted";
      task: PreparedTask;
      interrupts: StoredInterrupt[];
      answers: GivenAnswer[];
      taskCalls: TaskCallRecord[];
    }
  | { kind: "failed"; task: PreparedTask; error: unknown }
  /** An answer sent to it was refused: the whole run is undone. */
  | { kind: "rejected"; task: PreparedTask; error: Error }
  /** A subgraph node routed in the parent graph. */
  | { kind: "parent"; task: PreparedTask; command: unknown };
