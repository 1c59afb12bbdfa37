/**
 * A node's policies (retries, timeout, error handler, cache) as `addNode` and
 * `setNodeDefaults` give them: checked when given, resolved for each node at compile.
 */
import type { ErrorHandlerSpec } from "../algo/spec.js";
import { type CachePolicy, cachePolicyOf } from "../cache/base.js";
import { GraphValidationError } from "../errors/graph.js";
import { everyName, refuseUnknownGraphOptions } from "../errors/options.js";
import type { RetryPolicy } from "../runner/retry.js";
import { type TimeoutPolicy, timeoutPolicy } from "../runner/timeout.js";
import type { AddNodeOptions, NodePolicyOptions } from "./declaration.js";

/** The name `setNodeDefaults`' error handler runs (and streams) under. */
export const DEFAULT_HANDLER = "__default_error_handler__";
/** A node's own error handler is named `__error_handler__<node>` (its writes stream under it). */
export const ERROR_HANDLER_PREFIX = "__error_handler__";

/** `setNodeDefaults`' options by name. */
const POLICY_OPTIONS = everyName<keyof NodePolicyOptions>({
  retryPolicy: 1,
  cachePolicy: 1,
  timeout: 1,
  errorHandler: 1,
});

/** `addNode`'s options by name: the policies, and the node's own. */
export const ADD_NODE_OPTIONS = [
  ...POLICY_OPTIONS,
  ...everyName<Exclude<keyof AddNodeOptions, keyof NodePolicyOptions>>({
    ends: 1,
    metadata: 1,
    subgraphs: 1,
    tracePolicy: 1,
    defer: 1,
    input: 1,
  }),
];

/**
 * Refuses an option the call does not take (`known`: a node's policies unless said), and a
 * malformed policy, where it is given, naming the call.
 */
export function checkPolicies(
  call: string,
  node: string | undefined,
  options: NodePolicyOptions,
  known: readonly string[] = POLICY_OPTIONS,
): void {
  refuseUnknownGraphOptions(call, options, known, node);
  timeoutPolicy(node ?? call, options.timeout);
  if (options.errorHandler !== undefined && typeof options.errorHandler !== "function")
    throw new GraphValidationError(
      `${call}: errorHandler must be a function (state, nodeError, config) => update.`,
      node,
    );
  const cache = options.cachePolicy;
  if (cache !== undefined && typeof cache !== "boolean" && (typeof cache !== "object" || cache === null))
    throw new GraphValidationError(
      `${call}: cachePolicy must be true, false or { keyFunc?, ttl? } (ttl in seconds).`,
      node,
    );
}

export interface NodePolicies {
  retryPolicy?: RetryPolicy;
  timeout?: TimeoutPolicy;
  errorHandler?: ErrorHandlerSpec;
  cachePolicy?: CachePolicy;
}

/** The policies node `name` runs with: its own, else the graph's defaults. */
export function resolvePolicies(name: string, own: NodePolicyOptions, defaults: NodePolicyOptions = {}): NodePolicies {
  const handler = own.errorHandler ?? defaults.errorHandler;
  const cache = own.cachePolicy === false ? undefined : (own.cachePolicy ?? defaults.cachePolicy);
  return {
    retryPolicy: own.retryPolicy ?? defaults.retryPolicy,
    timeout: timeoutPolicy(name, own.timeout ?? defaults.timeout),
    errorHandler: handler && {
      name: own.errorHandler ? `${ERROR_HANDLER_PREFIX}${name}` : DEFAULT_HANDLER,
      run: handler,
      retryPolicy: own.errorHandler ? undefined : defaults.retryPolicy,
    },
    cachePolicy: cachePolicyOf(cache),
  };
}

/** An error handler may route anywhere with `Command({ goto })`, so no node is unreachable (as in LangGraph). */
export function hasErrorHandler(
  nodes: Iterable<{ options: NodePolicyOptions }>,
  defaults?: NodePolicyOptions,
): boolean {
  if (defaults?.errorHandler) return true;
  for (const node of nodes) if (node.options.errorHandler) return true;
  return false;
}
