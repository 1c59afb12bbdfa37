/**
 * `task(name, fn)`: a side effect that runs once per node run, even though the node itself
 * runs again from its start on every resume. The result (or error) is saved with the task's
 * writes the moment it is known, and replayed on the next attempt instead of calling `fn`.
 */
import { currentTask } from "./context.js";

export interface TaskOptions {
  /** Errors are not saved: a failed call runs again on the next attempt. */
  retryable?: boolean;
}

export type TaskFunction<Args extends unknown[], Result> = ((...args: Args) => Promise<Awaited<Result>>) & {
  readonly taskName: string;
};

export function task<Args extends unknown[], Result>(
  nameOrOptions: string | ({ name: string } & TaskOptions),
  fn: (...args: Args) => Result,
): TaskFunction<Args, Result> {
  const options: TaskOptions & { name: string } =
    typeof nameOrOptions === "string" ? { name: nameOrOptions } : nameOrOptions;
  const call = async (...args: Args): Promise<Awaited<Result>> => {
    const scope = currentTask();
    const index = scope ? scope.taskCallCounter++ : 0;
    const invoke = async (): Promise<Awaited<Result>> => (await fn(...args)) as Awaited<Result>;
    const perform = (): Promise<Awaited<Result>> =>
      scope?.traceCall ? scope.traceCall(options.name, index, args, invoke) : invoke();
    if (!scope?.run.saver) return perform();
    const saved = scope.taskCalls[index];
    if (saved && saved.name === options.name) {
      if (saved.ok) return saved.value as Awaited<Result>;
      throw reviveError(saved.value);
    }
    // A different call at this position: the node's path changed, earlier records no longer apply.
    scope.taskCalls.length = index;
    try {
      const value = await perform();
      scope.taskCalls.push({ name: options.name, ok: true, value });
      await scope.saveTaskCalls();
      return value;
    } catch (error) {
      if (!options.retryable && !isControlFlow(error)) {
        scope.taskCalls.push({ name: options.name, ok: false, value: errorRecord(error) });
        await scope.saveTaskCalls();
      }
      throw error;
    }
  };
  return Object.assign(call, { taskName: options.name });
}

function isControlFlow(error: unknown): boolean {
  const name = (error as Error)?.name;
  return name === "GraphInterrupt" || name === "ParentCommand";
}

function errorRecord(error: unknown): { name: string; message: string } {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: "Error", message: String(error) };
}

function reviveError(saved: unknown): Error {
  const { name, message } = saved as { name: string; message: string };
  const error = new Error(message);
  error.name = name;
  return error;
}
