import { InterludeError, preview } from "./base.js";

/** A run's input does not match the graph's state (or input) schema. Nothing was run. */
export class StateInputError extends InterludeError {
  constructor(
    readonly field: string,
    readonly issues: readonly string[],
    value: unknown,
  ) {
    super(
      "INVALID_STATE_INPUT",
      `Input field "${field}" does not match the graph's schema: ${issues.join("; ")} (got ${preview(value, 120)}). ` +
        `Nothing was run; pass a value the schema accepts.`,
    );
  }
}

/** What was passed to `new StateGraph(...)` is not a state definition. */
export class StateDefinitionError extends InterludeError {
  constructor(role: string, value: unknown) {
    const kind =
      value === null ? "null" : typeof value === "object" ? (value.constructor?.name ?? "object") : typeof value;
    super(
      "INVALID_STATE_DEFINITION",
      `The ${role} schema given to new StateGraph() is not a state definition (got ${kind}). ` +
        `Pass Annotation.Root({...}), new StateSchema({...}), a zod object (z.object({...})), or { state, input, output, context }.`,
    );
  }
}
