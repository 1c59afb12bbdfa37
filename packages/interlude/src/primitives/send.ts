import { registerSerializable } from "../checkpoint/serde-registry.js";
import { type TimeoutPolicy, timeoutPolicy } from "../runner/timeout.js";
/** Runs `node` in the next step with `arg` as its input instead of the state (map-reduce fan-out). */
export class Send<Node extends string = string, Arg = unknown> {
  readonly lg_name = "Send" as const;
  /** This task's limits, instead of its node's `timeout`. */
  readonly timeout?: TimeoutPolicy;
  constructor(
    readonly node: Node,
    readonly args: Arg,
    options?: { timeout?: number | TimeoutPolicy },
  ) {
    const timeout = timeoutPolicy(node, options?.timeout);
    if (timeout) this.timeout = timeout;
  }
  toJSON(): { lg_name: "Send"; node: string; args: unknown; timeout?: TimeoutPolicy } {
    const json = { lg_name: this.lg_name, node: this.node, args: this.args };
    return this.timeout ? { ...json, timeout: this.timeout } : json;
  }
}

export function isSend(value: unknown): value is Send {
  return value instanceof Send || (typeof value === "object" && value !== null && (value as Send).lg_name === "Send");
}

// A Send can sit in a saved Command's goto (a Send whose argument is a Command).
registerSerializable("Send", Send);
