/**
 * Reserved names. Every special channel, node and graph name is defined once here;
 * nothing else in the code base spells them as string literals.
 */
export const START = "__start__";
export const END = "__end__";
export const INTERRUPT = "__interrupt__";

/** `updateState(config, input, INPUT)`: an input checkpoint, as a run's input makes (its `__start__` still to run). */
export const INPUT = "__input__";
/** `updateState(config, null, COPY)`: a copy of the checkpoint, its next tasks to run again. */
export const COPY = "__copy__";
/** `Command({ graph: PARENT })` routes in the graph that called this subgraph. */
export const PARENT = "__parent__";
/** Key of a `Command` update that is a bare value rather than an object of channel values. */
export const ROOT = "__root__";

/** Kinds of task, as LangGraph names them in a task's `path`. */
export const PULL = "__pregel_pull";
export const PUSH = "__pregel_push";

/** Reserved channels used in pending writes. */
export const RESUME = "__resume__";
export const ERROR = "__error__";
export const TASKS = "__pregel_tasks";
/** Saved results of `task()` calls inside a node, keyed by call order. */
export const TASK_RESULT = "__task_result__";
/**
 * Slot of an interrupt asked inside a `task()` call: `${TASK_CALL_SLOT}${call}.${position}`.
 * Counted per call, so a call whose result was saved (and is not run again) does not shift
 * the positions of the interrupts asked after it.
 */
export const TASK_CALL_SLOT = "__task_call__:";
/** Marks a task as finished even when it wrote nothing. */
export const DONE = "__done__";
/** Who answered, saved with a paused checkpoint until the next checkpoint records it. */
export const AUDIT = "__audit__";

/** Task id used for writes that belong to no task (input, Command.update on resume). */
export const NULL_TASK_ID = "00000000-0000-0000-0000-000000000000";

/** Separators of checkpoint namespaces: `parent_node:taskId|child_node:taskId`. */
export const NS_SEP = "|";
export const NS_END = ":";

/**
 * Writes to these channels replace the earlier write of the same task instead of adding a new
 * one: a task has at most one error, one interrupt list and one resume list at a time.
 */
export const WRITES_IDX_MAP: Readonly<Record<string, number>> = Object.freeze({
  [ERROR]: -1,
  [INTERRUPT]: -3,
  [RESUME]: -4,
  [TASK_RESULT]: -5,
});
