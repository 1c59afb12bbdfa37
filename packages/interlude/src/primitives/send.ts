import { registerSerializable } from "../checkpoint/serde-registry.js";
import { UnsupportedFeatureError } from "../errors/unsupported.js";
/** Runs `node` in the next step with `arg` as its input instead of the state (map-reduce fan-out). */
export class Send<Node extends string = string, Arg = unknown> {
  readonly lg_name = "Send";
  constructor(
    readonly node: Node,
    readonly args: Arg,
    options?: { timeout?: unknown },
  ) {
    // LangGraph's per-push timeout: ignoring it would leave the push without the limit its code sets.
    if (options?.timeout !== undefined)
      throw new UnsupportedFeatureError(
        `new Send("${node}", arg, { timeout })`,
        `Give the node a timeout instead: addNode("${node}", fn, { timeout }).`,
      );
  }
  toJSON(): { node: string; args: unknown } {
    return { node: this.node, args: this.args };
  }
}

export function isSend(value: unknown): value is Send {
  return value instanceof Send || (typeof value === "object" && value !== null && (value as Send).lg_name === "Send");
}

// A Send can sit in a saved Command's goto (a Send whose argument is a Command).
registerSerializable("Send", Send);
