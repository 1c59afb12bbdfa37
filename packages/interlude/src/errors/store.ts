import { InterludeError } from "./base.js";

/** A namespace that a store cannot hold: empty, with an empty label, or a label with `.`, `:` or NUL. */
export class InvalidNamespaceError extends InterludeError {
  constructor(reason: string) {
    super(
      "INVALID_NAMESPACE",
      `${reason} A namespace is a non-empty array of non-empty strings without ".", ":" or NUL, e.g. ["users", "u-42", "memories"].`,
    );
  }
}

/** A store option Interlude does not implement (semantic search needs an embeddings index). */
export class UnsupportedStoreOptionError extends InterludeError {
  constructor(option: string, advice: string) {
    super("UNSUPPORTED_STORE_OPTION", `The store option ${option} is not supported by Interlude's stores. ${advice}`);
  }
}

/** `getConfig()` and friends were called where no node is running. */
export class OutsideNodeError extends InterludeError {
  constructor(helper: string) {
    super(
      "OUTSIDE_NODE",
      `${helper} was called outside a running node. Call it from inside a node or task, or pass the node's config: ${helper.replace("()", "(config)")}.`,
    );
  }
}
