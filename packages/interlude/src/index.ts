export * from "./constants.js";
export * from "./errors/index.js";
export * from "./checkpoint/index.js";
