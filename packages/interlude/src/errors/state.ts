import { InterludeError, preview } from "./base.js";

/**
 * A value does not match the graph's state schema: the run's input (nothing was run) or a
 * node's update (nothing of that step was saved).
 */
export class StateInputError extends InterludeError {
  constructor(
    readonly field: string,
    readonly issues: readonly string[],
    value: unknown,
    /** The node whose update it was; undefined for the run's input. */
    readonly node?: string,
  ) {
    const where = node === undefined ? `Input field "${field}"` : `Field "${field}" in the update of node "${node}"`;
    const fix =
      node === undefined ? "Nothing was run; pass a value the schema accepts." : "Return a value the schema accepts.";
    super(
      "INVALID_STATE_INPUT",
      `${where} does not match the graph's schema: ${issues.join("; ")} (got ${preview(value, 120)}). ${fix}`,
      { details: node === undefined ? { issues } : { issues, node } },
    );
  }
}

/** What was passed to `new StateGraph(...)` is not a state definition (LangGraph.js's name for it). */
export class StateGraphInputError extends InterludeError {
  static get unminifiable_name(): string {
    return "StateGraphInputError";
  }
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

/** `config.context` does not match the graph's context schema. Nothing was run. */
export class InvalidContextError extends InterludeError {
  constructor(readonly issues: readonly string[]) {
    super(
      "INVALID_CONTEXT",
      `The run's context does not match the graph's context schema: ${issues.join("; ")}. ` +
        `Nothing was run; pass { context: {...} } with the fields the schema requires.`,
      { details: { issues } },
    );
  }
}
