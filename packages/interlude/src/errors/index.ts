export * from "./base.js";
export * from "./codes.js";
export * from "./graph.js";
export * from "./resume.js";
export * from "./state.js";
export * from "./storage.js";
export * from "./store.js";
export * from "./unsupported.js";
