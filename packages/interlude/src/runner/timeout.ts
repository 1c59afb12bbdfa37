/**
 * A node's `timeout`: a hard limit on each attempt (`runTimeout`) and one on the time without
 * progress (`idleTimeout`). Progress is what the node does (`refreshOn: "auto"`: its `writer`
 * chunks, `task()` calls, pushed messages, LangChain events, see runner/policies.ts) and its
 * `heartbeat()` calls, or its `heartbeat()` calls only (`"heartbeat"`).
 */
import { GraphValidationError } from "../errors/graph.js";
import { NodeTimeoutError, type TimeoutKind } from "../errors/node.js";

export interface TimeoutPolicy {
  /** Ms an attempt may take in all. */
  runTimeout?: number;
  /** Ms an attempt may go without progress. */
  idleTimeout?: number;
  /** What counts as progress (default `"auto"`). */
  refreshOn?: "auto" | "heartbeat";
}

/** The policy of `timeout` (ms, or a policy), checked when the node is added; undefined for none. */
export function timeoutPolicy(node: string, timeout: number | TimeoutPolicy | undefined): TimeoutPolicy | undefined {
  if (timeout === undefined || timeout === null) return undefined;
  const policy = typeof timeout === "number" ? { runTimeout: timeout } : timeout;
  if (typeof policy !== "object")
    throw new GraphValidationError(
      `The timeout of node "${node}" must be a number of ms or { runTimeout, idleTimeout, refreshOn }.`,
      node,
    );
  for (const key of ["runTimeout", "idleTimeout"] as const) {
    const ms = policy[key];
    if (ms !== undefined && !(typeof ms === "number" && ms > 0))
      throw new GraphValidationError(`The ${key} of node "${node}" must be a number of ms above 0.`, node);
  }
  const refreshOn = policy.refreshOn ?? "auto";
  if (refreshOn !== "auto" && refreshOn !== "heartbeat")
    throw new GraphValidationError(`The timeout's refreshOn of node "${node}" must be "auto" or "heartbeat".`, node);
  if (policy.runTimeout === undefined && policy.idleTimeout === undefined) return undefined;
  return { runTimeout: policy.runTimeout, idleTimeout: policy.idleTimeout, refreshOn };
}

/** One attempt's clocks: started when it starts, told of its progress, asked when it is over. */
export class AttemptClock {
  private readonly started = performance.now();
  private lastProgress = this.started;
  private timer?: ReturnType<typeof setTimeout>;

  constructor(
    private readonly node: string,
    private readonly policy: TimeoutPolicy,
  ) {}

  readonly progress = (): void => {
    this.lastProgress = performance.now();
  };

  /** Calls `expired` with the error once a limit is passed; `stop()` before that cancels it. */
  watch(expired: (error: NodeTimeoutError) => void): void {
    const check = () => {
      const error = this.overdue();
      if (error) return expired(error);
      this.timer = setTimeout(check, this.untilDue());
    };
    this.timer = setTimeout(check, this.untilDue());
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  /**
   * `work`, unless a limit passes first: then NodeTimeoutError, and `expired()` is told at once
   * (to abort the work and drop what it does after). A `finished` value that comes past the run
   * limit counts as late too: a synchronous body can pass it without the timer getting a turn.
   */
  race<T>(work: Promise<T>, finished: (value: T) => boolean, expired: () => void = () => undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let over = false;
      const expire = (error: NodeTimeoutError) => {
        over = true;
        this.stop();
        expired();
        reject(error);
      };
      this.watch(expire);
      work.then(
        (value) => {
          if (over) return;
          this.stop();
          const late = finished(value) ? this.overdue(["run"]) : undefined;
          return late ? expire(late) : resolve(value);
        },
        (error: unknown) => {
          if (over) return;
          this.stop();
          reject(error);
        },
      );
    });
  }

  /** The error for a limit already passed, if one is (a synchronous node can pass it without a timer firing). */
  overdue(kinds: readonly TimeoutKind[] = ["run", "idle"]): NodeTimeoutError | undefined {
    const now = performance.now();
    const { runTimeout, idleTimeout } = this.policy;
    const elapsed = Math.round(now - this.started);
    if (kinds.includes("run") && runTimeout !== undefined && now - this.started >= runTimeout)
      return new NodeTimeoutError({ node: this.node, kind: "run", elapsed, runTimeout, idleTimeout });
    if (kinds.includes("idle") && idleTimeout !== undefined && now - this.lastProgress >= idleTimeout)
      return new NodeTimeoutError({ node: this.node, kind: "idle", elapsed, runTimeout, idleTimeout });
    return undefined;
  }

  private untilDue(): number {
    const now = performance.now();
    const { runTimeout, idleTimeout } = this.policy;
    const due = Math.min(
      runTimeout === undefined ? Infinity : this.started + runTimeout,
      idleTimeout === undefined ? Infinity : this.lastProgress + idleTimeout,
    );
    return Math.max(1, Math.ceil(due - now));
  }
}
