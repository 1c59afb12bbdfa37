import { registerSerializable } from "../checkpoint/serde-registry.js";
import { PARENT, ROOT } from "../constants.js";
import { everyName, refuseUnknownGraphOptions } from "../errors/options.js";
import { isSend, Send } from "./send.js";

/** A `Send` written as plain data (`{ node, args }`, with a `timeout` if any). */
interface SendShape {
  node: string;
  args: unknown;
  timeout?: number;
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function isSendShape(value: unknown): value is SendShape {
  if (typeof value !== "object" || value === null || isSend(value) || !isPlainObject(value)) return false;
  return typeof (value as SendShape).node === "string" && "args" in value;
}

export interface CommandParams<Resume = unknown, Update = Record<string, unknown>, Node extends string = string> {
  /** Answer to the pending interrupt, or `{ [interruptId]: answer }` for several. */
  resume?: Resume;
  /** State update applied before the run continues (as if written by the paused node's predecessor). */
  update?: Update | [string, unknown][];
  /** Node(s) to run next; a plain `{ node, args }` is taken as a `Send`, as LangGraph.js takes it. */
  goto?: Node | Send | SendShape | Array<Node | Send | SendShape>;
  /** `Command.PARENT` to route in the graph that called this subgraph. */
  graph?: string;
  /** Who answered: recorded with the resume in the checkpoint's metadata. */
  by?: string;
  /** Why (free text), recorded with the resume. */
  reason?: string;
}

/** LangGraph's brand of a command's parameters (`command[COMMAND_SYMBOL]`). */
export const COMMAND_SYMBOL: unique symbol = Symbol.for("langgraph.command") as never;

/** What every Command is, holding the parameters it was made with (LangGraph's base class). */
export class CommandInstance<Resume = unknown, Update = Record<string, unknown>, Node extends string = string> {
  readonly [COMMAND_SYMBOL]: CommandParams<Resume, Update, Node>;
  constructor(params: CommandParams<Resume, Update, Node>) {
    this[COMMAND_SYMBOL] = params;
  }
}

/** `new Command()`'s parameters by name, and the tag a spread Command carries along. */
const COMMAND_PARAMS = [
  ...everyName<keyof CommandParams>({ resume: 1, update: 1, goto: 1, graph: 1, by: 1, reason: 1 }),
  "lg_name",
];

/**
 * Input to `invoke` to resume a paused thread, or a node's return value to update the state
 * and choose where to go next.
 */
export class Command<
  Resume = unknown,
  Update = Record<string, unknown>,
  Node extends string = string,
> extends CommandInstance<Resume, Update, Node> {
  readonly lg_name = "Command";
  static readonly PARENT = PARENT;

  /** LangChain's tools hand a Command back as it is (not as a ToolMessage's text). */
  get lc_direct_tool_output(): true {
    return true;
  }

  readonly resume?: Resume;
  readonly update?: Update | [string, unknown][];
  readonly goto: Array<Node | Send>;
  readonly graph?: string;
  readonly by?: string;
  readonly reason?: string;

  constructor(params: CommandParams<Resume, Update, Node> = {}) {
    // A misspelt `resume` would resume nothing (NothingToResumeError at best, a run at worst).
    refuseUnknownGraphOptions("new Command()", params, COMMAND_PARAMS);
    super(params);
    this.resume = params.resume;
    this.update = params.update;
    const goto = params.goto === undefined ? [] : Array.isArray(params.goto) ? params.goto : [params.goto];
    this.goto = goto.map((target) =>
      isSendShape(target) ? new Send(target.node as Node, target.args, target) : target,
    );
    this.graph = params.graph;
    this.by = params.by;
    this.reason = params.reason;
  }

  /** As LangGraph.js writes a Command as JSON (no `graph`); `by` and `reason` only when given. */
  toJSON(): Record<string, unknown> {
    const json: Record<string, unknown> = {
      lg_name: this.lg_name,
      update: this.update,
      resume: this.resume,
      goto: this.goto.map((target) => (typeof target === "string" ? target : target.toJSON())),
    };
    if (this.by !== undefined) json.by = this.by;
    if (this.reason !== undefined) json.reason = this.reason;
    return json;
  }

  /** The update as `[key, value]` pairs. */
  updateEntries(): [string, unknown][] {
    const update = this.update as unknown;
    if (update === undefined || update === null) return [];
    if (Array.isArray(update)) return update as [string, unknown][];
    if (typeof update === "object") return Object.entries(update as Record<string, unknown>);
    return [[ROOT, update]];
  }
}

/**
 * A Command, or one made by another copy of this package (its `lg_name`). As in LangGraph.js, a
 * plain object is never one: `{ lg_name: "Command", ... }` returned by a node is a state update.
 */
export function isCommand(value: unknown): value is Command {
  if (value instanceof Command) return true;
  // The tag first: a node's plain update (the common case) is told apart without its prototype.
  return (
    typeof value === "object" && value !== null && (value as Command).lg_name === "Command" && !isPlainObject(value)
  );
}

// A Command can be the argument of a Send, which is saved with the checkpoint until it runs.
registerSerializable("Command", Command);
