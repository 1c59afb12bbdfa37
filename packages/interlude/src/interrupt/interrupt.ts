/**
 * `interrupt(value)`: ask a human and stop the node; on resume, the same call returns the answer.
 */

import { interruptId, payloadDigest } from "../algo/hash.js";
import { TASK_CALL_SLOT } from "../constants.js";
import { InterruptOutsideNodeError, MissingCheckpointerError } from "../errors/graph.js";
import { AsyncSchemaError, InterruptMismatchError, InvalidResumeError } from "../errors/resume.js";
import { currentTask, type TaskScope } from "../runner/scope.js";
import type { GivenAnswer, StoredInterrupt } from "./record.js";
import { GraphInterrupt } from "./signal.js";
import { describeSchema, isStandardSchema, type StandardSchemaV1 } from "./standard-schema.js";

export interface InterruptOptions<Answer = unknown> {
  /**
   * Match the answer by this key instead of by position among the node's interrupts, for
   * nodes whose interrupts may come in a different order on replay.
   */
  key?: string;
  /** Validates the answer (any Standard Schema validator). A failing answer is refused and the interrupt stays pending. */
  responseSchema?: StandardSchemaV1<unknown, Answer>;
  /** JSON Schema of the answer, for forms, when the validator cannot describe itself. */
  jsonSchema?: Record<string, unknown>;
}

function refuse(scope: TaskScope, error: Error): never {
  (scope.root ?? scope).rejection ??= error;
  throw error;
}

function validate<Answer>(
  scope: TaskScope,
  id: string,
  answer: unknown,
  schema: StandardSchemaV1<unknown, Answer> | undefined,
): Answer {
  if (!schema) return answer as Answer;
  const result = schema["~standard"].validate(answer);
  if (result instanceof Promise) {
    throw new AsyncSchemaError();
  }
  if (result.issues) refuse(scope, new InvalidResumeError(id, result.issues));
  return result.value as Answer;
}

function checkSameQuestion(
  scope: TaskScope,
  given: GivenAnswer,
  digest: string,
  value: unknown,
  position: number,
): void {
  if (scope.run.positional || given.digest === digest) return;
  refuse(scope, new InterruptMismatchError(scope.node, position, given.question, value));
}

/**
 * Pauses the graph and hands `value` to the caller. When the thread is resumed with
 * `new Command({ resume })`, the node runs again from its start and this call returns the answer.
 * Typed as LangGraph's `interrupt<I, R>`: the value's type, then the answer's (or the answer
 * typed by `responseSchema`).
 */
export function interrupt<Value = unknown, Answer = any>(value: Value, options: InterruptOptions<Answer> = {}): Answer {
  const scope = currentTask();
  if (!scope) throw new InterruptOutsideNodeError();
  // Refused (not just thrown) so that a node catching it cannot turn it into a silent success.
  if (!scope.run.saver) refuse(scope, new MissingCheckpointerError(`interrupt() in node "${scope.node}"`));
  const index = scope.interruptCounter++;
  const key = options.key ?? (scope.callSlot === undefined ? undefined : `${TASK_CALL_SLOT}${scope.callSlot}.${index}`);
  const slot = key ?? index;
  const digest = payloadDigest(value);
  const given = key !== undefined ? scope.byKey.get(key) : scope.byIndex.get(index);

  if (given) {
    checkSameQuestion(scope, given, digest, value, index);
    // The answer's id is the question's (given.id): no need to hash it again.
    const answer = given.fresh
      ? validate(scope, given.id, given.value, options.responseSchema)
      : (given.value as Answer);
    scope.used.push({ ...given, value: answer, digest, question: value, fresh: false });
    return answer;
  }
  const stored: StoredInterrupt = { id: interruptId(scope.ns, slot), value, digest, ns: scope.ns };
  if (key !== undefined) stored.key = key;
  else stored.index = index;
  const schema =
    options.jsonSchema ??
    (isStandardSchema(options.responseSchema) ? describeSchema(options.responseSchema) : undefined);
  if (schema) stored.responseSchema = schema;
  (scope.root ?? scope).raised ??= [stored];
  throw new GraphInterrupt([stored]);
}
