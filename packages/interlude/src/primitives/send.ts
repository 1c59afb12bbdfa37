import { registerSerializable } from "../checkpoint/serde-registry.js";
/** Runs `node` in the next step with `arg` as its input instead of the state (map-reduce fan-out). */
export class Send<Node extends string = string, Arg = unknown> {
  readonly lg_name = "Send";
  constructor(
    readonly node: Node,
    readonly args: Arg,
  ) {}
  toJSON(): { node: string; args: unknown } {
    return { node: this.node, args: this.args };
  }
}

export function isSend(value: unknown): value is Send {
  return value instanceof Send || (typeof value === "object" && value !== null && (value as Send).lg_name === "Send");
}

// A Send can sit in a saved Command's goto (a Send whose argument is a Command).
registerSerializable("Send", Send);
