export * from "./after-finish.js";
export * from "./base.js";
export * from "./binop.js";
export * from "./ephemeral.js";
export * from "./last-value.js";
export * from "./named-barrier.js";
export * from "./topic.js";
export * from "./trigger.js";
