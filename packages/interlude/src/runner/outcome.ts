import type { PreparedTask } from "../algo/tasks.js";
import type { Write } from "../algo/writes.js";
import type { GivenAnswer, StoredInterrupt, TaskCallRecord } from "../interrupt/record.js";

/** How one task of a step ended. */
export type TaskOutcome =
  | {
      kind: "done";
      task: PreparedTask;
      writes: Write[];
      output: unknown;
      /** The writes came from the graph's cache: the node did not run. */
      cached?: boolean;
      /** Streamed under this name instead of the node's (its error handler's writes). */
      as?: string;
    }
  | {
      kind: "interrupted";
      task: PreparedTask;
      interrupts: StoredInterrupt[];
      answers: GivenAnswer[];
      taskCalls: TaskCallRecord[];
      /** Set when the node's error handler asked: the node's failure, so that resuming goes to the handler. */
      failure?: unknown;
      /**
       * Set when a subgraph run by the task stopped for a drain (`RunControl`), with its reason:
       * the task stops with no question of its own, keeping the questions stored with it
       * (run/outcomes.ts), and the run drains.
       */
      drained?: string;
    }
  | { kind: "failed"; task: PreparedTask; error: unknown }
  /** An answer sent to it was refused: the whole run is undone. */
  | { kind: "rejected"; task: PreparedTask; error: Error }
  /** A subgraph node routed in the parent graph. */
  | { kind: "parent"; task: PreparedTask; command: unknown };
