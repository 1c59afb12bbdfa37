/**
 * `@interlude/core/web`, for code written against `@langchain/langgraph/web`: the same exports
 * as the root entry (as in LangGraph.js 1.7, whose web entry equals its root). Interlude runs
 * where `AsyncLocalStorage` exists: Node, Deno, Bun, and Cloudflare Workers with `nodejs_compat`.
 */
export * from "./index.js";
