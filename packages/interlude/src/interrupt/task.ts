/**
 * `task(name, fn)`: a side effect that runs once per node run, even though the node itself
 * runs again from its start on every resume. The result (or error) is saved with the task's
 * writes the moment it is known, and replayed on the next attempt instead of calling `fn`.
 */

import { refuseGenerator } from "../errors/graph.js";
import { everyName, refuseUnknownGraphOptions } from "../errors/options.js";
import { callScope, currentTask, taskStorage } from "../runner/scope.js";
import { errorFromRecord, errorRecord } from "../thread/pending.js";
import { callEnded, callFailed, callStarted } from "./call-events.js";
import { isGraphInterrupt, ParentCommand } from "./signal.js";
import { type CallPolicies, governed, policiesOf, throughCache } from "./task-policies.js";

export interface TaskOptions extends CallPolicies {
  /** Errors are not saved: a failed call runs again on the next attempt. */
  retryable?: boolean;
}

export type TaskFunction<Args extends unknown[], Result> = ((...args: Args) => Promise<Awaited<Result>>) & {
  readonly taskName: string;
};

/** `task()`'s options by name. */
const TASK_OPTIONS = everyName<keyof ({ name: string } & TaskOptions)>({
  name: 1,
  retry: 1,
  timeout: 1,
  cachePolicy: 1,
  cache: 1,
  retryable: 1,
});

export function task<Args extends unknown[], Result>(
  nameOrOptions: string | ({ name: string } & TaskOptions),
  fn: (...args: Args) => Result,
): TaskFunction<Args, Result> {
  const options = typeof nameOrOptions === "string" ? { name: nameOrOptions } : nameOrOptions;
  refuseUnknownGraphOptions(`task("${options.name}")`, options, TASK_OPTIONS);
  refuseGenerator(fn, "a task", options.name);
  return makeTask(options, fn, false);
}

/**
 * A call recorded as `task()` records it (run once, its result replayed on resume), that is not
 * a task to anyone watching: no stream events, no chain run of its own. ToolNode's tool calls
 * are such: LangGraph runs them inside the node.
 */
export function recordedCall<Result>(name: string, fn: () => Result): Promise<Awaited<Result>> {
  return makeTask({ name }, fn, true)();
}

function makeTask<Args extends unknown[], Result>(
  options: TaskOptions & { name: string },
  fn: (...args: Args) => Result,
  quiet: boolean,
): TaskFunction<Args, Result> {
  const policies = policiesOf(options.name, options);
  const call = async (...args: Args): Promise<Awaited<Result>> => {
    const scope = currentTask();
    if (!scope) return (await governed(options.name, policies, async () => fn(...args))()) as Awaited<Result>;
    const owner = scope.root ?? scope;
    const index = owner.taskCallCounter++;
    scope.progress?.();
    const invoke = governed(
      options.name,
      policies,
      () => taskStorage.run(callScope(scope, index), () => fn(...args)) as Promise<Awaited<Result>>,
    );
    const traced = (): Promise<Awaited<Result>> =>
      scope.traceCall && !quiet ? scope.traceCall(options.name, index, args, invoke) : invoke();
    // The node's answers used so far: one used during the call makes its result a person's.
    const usedBefore = scope.used.length;
    const usedAnswer = () => scope.used.length > usedBefore;
    const run = async (): Promise<Awaited<Result>> => {
      if (!quiet) callStarted(scope, options.name, index, args);
      try {
        const result = await throughCache(scope.cache, options.name, policies.cachePolicy, args, traced, usedAnswer);
        if (!quiet) callEnded(scope, options.name, index, result.value, result.cached);
        return result.value;
      } catch (error) {
        if (!quiet) callFailed(scope, options.name, index, error);
        throw error;
      }
    };
    if (!scope.run.saver) return run();
    const saved = owner.taskCalls[index];
    if (saved && saved.name === options.name) {
      if (saved.ok) return saved.value as Awaited<Result>;
      throw errorFromRecord(saved.value);
    }
    // A different call at this position: the node's path changed, later records no longer apply.
    if (saved) owner.taskCalls.length = index;
    // Records go to their call's position, not in completion order: calls started together
    // (Promise.all) finish in any order, and a replay looks each one up by position.
    try {
      const value = await run();
      owner.taskCalls[index] = { name: options.name, ok: true, value };
      await owner.saveTaskCalls();
      return value;
    } catch (error) {
      if (!options.retryable && !isControlFlow(error)) {
        owner.taskCalls[index] = { name: options.name, ok: false, value: errorRecord(error) };
        await owner.saveTaskCalls();
      }
      throw error;
    }
  };
  return Object.assign(call, { taskName: options.name });
}

function isControlFlow(error: unknown): boolean {
  return isGraphInterrupt(error) || error instanceof ParentCommand;
}
