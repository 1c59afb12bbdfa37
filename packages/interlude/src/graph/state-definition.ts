/**
 * Turns the ways LangGraph 1.x declares state (Annotation, StateSchema, zod objects with
 * LangGraph metadata, `{ state, input, output, context }`) into one shape the builder uses:
 * the channels of every key, the input and output keys, and the validators of the input.
 */
import { isDeltaChannel } from "../channels/delta.js";
import { GraphValidationError } from "../errors/graph.js";
import { refuseUnknownGraphOptions } from "../errors/options.js";
import { StateGraphInputError } from "../errors/state.js";
import { UnsupportedFeatureError } from "../errors/unsupported.js";
import { interrupt } from "../interrupt/interrupt.js";
import { isStandardSchema, type StandardSchemaV1 } from "../interrupt/standard-schema.js";
import { type ChannelSpec, isAnnotationRoot, type StateSpec } from "./annotation.js";
import { defaultOf, schemaMeta, zodObjectShape } from "./schema-meta.js";
import { StateSchema } from "./state-schema.js";
import { partOfFields } from "./state-schema-views.js";

export interface ResolvedState {
  spec: StateSpec;
  /** Keys accepted from a run's input (all state keys when no input schema was given). */
  inputKeys?: readonly string[];
  /** Keys returned by `invoke` (all state keys when no output schema was given). */
  outputKeys?: readonly string[];
  /** Validator of each input key that has one (zod and StateSchema fields). */
  validators: ReadonlyMap<string, StandardSchemaV1>;
  contextSchema?: unknown;
}

export interface Part {
  spec: StateSpec;
  validators: Map<string, StandardSchemaV1>;
}

// `writer` and `nodes` only type the graph's nodes, in LangGraph.js too; `interrupt` is checked (refuseCustomInterrupt).
const INIT_KEYS = ["state", "stateSchema", "input", "output", "context", "interrupt", "writer", "nodes"];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isChannelSpec(value: unknown): value is ChannelSpec {
  return (value as ChannelSpec | undefined)?.lg_kind === "channel";
}

/** `{ state, input, output, context }` rather than a state spec that happens to have such keys. */
function isInit(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value) || "channels" in value) return false;
  const keys = Object.keys(value);
  return keys.some((k) => INIT_KEYS.includes(k)) && !Object.values(value).some(isChannelSpec);
}

function fromZodShape(shape: Record<string, unknown>): Part {
  const spec: StateSpec = {};
  const validators = new Map<string, StandardSchemaV1>();
  for (const [key, field] of Object.entries(shape)) {
    const meta = schemaMeta(field);
    const reducer = meta?.reducer?.fn;
    // zod's own `.default()` wins over the registry's, as in LangGraph.js.
    spec[key] = { lg_kind: "channel", reducer, default: (defaultOf(field) ?? meta?.default) as never };
    // A reducer's input may differ from the stored value: validate against its own schema, if any.
    const validator = reducer ? meta?.reducer?.schema : field;
    if (isStandardSchema(validator)) validators.set(key, validator);
  }
  return { spec, validators };
}

/** The channels (and validators) one schema declares, in any of the shapes a state may have. */
export function part(value: unknown, role: string): Part {
  if (isAnnotationRoot(value)) return { spec: value.spec, validators: new Map() };
  if (StateSchema.isInstance(value)) return partOfFields(value.fields);
  const shape = zodObjectShape(value);
  if (shape) return fromZodShape(shape);
  if (isPlainObject(value)) {
    if (isPlainObject(value.channels)) return { spec: value.channels as StateSpec, validators: new Map() };
    if (Object.values(value).every((v) => v === undefined || v === null || isPlainObject(v)))
      return { spec: value as StateSpec, validators: new Map() };
  }
  throw new StateGraphInputError(role, value);
}

/** `new StateGraph(first, second)` in any of the shapes LangGraph.js 1.7 accepts. */
export function resolveState(first: unknown, second?: unknown): ResolvedState {
  // An options object with a misspelt key (`ouput`) would lose that schema without a word.
  for (const given of [first, second])
    if (isInit(given)) refuseUnknownGraphOptions("new StateGraph()", given, INIT_KEYS);
  const init = isInit(first) ? first : isInit(second) ? { ...second, state: first } : { state: first, context: second };
  const stateDef = init.state ?? init.stateSchema ?? init.input;
  if (stateDef === undefined) throw new StateGraphInputError("state", stateDef);
  refuseCustomInterrupt(init.interrupt);
  const state = part(stateDef, "state");
  const input = init.input !== undefined && init.input !== stateDef ? part(init.input, "input") : undefined;
  const output = init.output !== undefined ? part(init.output, "output") : undefined;
  refuseOtherReducers(state, input, "input");
  refuseOtherReducers(state, output, "output");
  // Every key of the input and output is a channel too; the state's own declaration wins.
  const spec: StateSpec = { ...output?.spec, ...input?.spec, ...state.spec };
  const validators = new Map([...state.validators, ...(input?.validators ?? [])]);
  return {
    spec,
    inputKeys: init.input !== undefined ? Object.keys((input ?? state).spec) : undefined,
    outputKeys: output ? Object.keys(output.spec) : undefined,
    validators,
    contextSchema: init.context,
  };
}

/**
 * LangGraph.js hands `new StateGraph(state, { interrupt })` to the nodes as `config.interrupt`,
 * mostly `interrupt` itself, typed (`interrupt<Q, A>`). Interlude's nodes always get its own
 * `interrupt()`, whose answers it checks; another function would be silently replaced.
 */
function refuseCustomInterrupt(given: unknown): void {
  if (given === undefined || given === interrupt) return;
  throw new UnsupportedFeatureError(
    "a custom interrupt function (new StateGraph(state, { interrupt }))",
    "Nodes call Interlude's own interrupt() (config.interrupt is that function): pass `interrupt` from @interlude/core, typed as you like, or leave the option out.",
  );
}

/** Two declarations of one key with the same reducer: as delta channels, also the same snapshot frequency. */
function sameDeltaOptions(a: unknown, b: unknown): boolean {
  if (!isDeltaChannel(a) || !isDeltaChannel(b)) return isDeltaChannel(a) === isDeltaChannel(b);
  return a.snapshotFrequency === b.snapshotFrequency;
}

/**
 * A key an input or output schema declares with a reducer of its own, other than the state's:
 * which one would apply is anyone's guess (LangGraph.js refuses it too).
 */
function refuseOtherReducers(state: Part, other: Part | undefined, role: string): void {
  for (const [key, spec] of Object.entries(other?.spec ?? {})) {
    const own = state.spec[key];
    if (own && spec.reducer && (spec.reducer !== own.reducer || !sameDeltaOptions(own, spec)))
      throw new GraphValidationError(
        `State key "${key}" has another reducer (or snapshot frequency) in the ${role} schema than in the state. Declare its reducer once, in the state, and use the same field (or none) in the ${role} schema.`,
        key,
      );
  }
}
