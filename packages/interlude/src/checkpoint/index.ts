export * from "./types.js";
export * from "./base.js";
export * from "./id.js";
