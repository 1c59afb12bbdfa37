/**
 * What the page keeps in its address: the thread (so a reload rejoins it) and which hook drives
 * the page (`?hook=react`: `@langchain/react`; otherwise `@langchain/langgraph-sdk/react`).
 */
export type Hook = "sdk" | "react";

export function hookInUrl(): Hook {
  return new URLSearchParams(window.location.search).get("hook") === "react" ? "react" : "sdk";
}

export function threadInUrl(): string | null {
  return new URLSearchParams(window.location.search).get("thread");
}

/** Records the thread in the address without a navigation (replaceState keeps the page's state). */
export function putThreadInUrl(threadId: string | null): void {
  const url = new URL(window.location.href);
  if (threadId) url.searchParams.set("thread", threadId);
  else url.searchParams.delete("thread");
  window.history.replaceState(null, "", url);
}

/** The server's API key, if it needs one: the same one the inbox signs in with (same origin). */
export function apiKey(): string | undefined {
  return window.sessionStorage.getItem("interlude.apiKey") ?? undefined;
}

/** The graph the page talks to (`?assistant=<id>`, default the sample agent). */
export function assistantInUrl(): string {
  return new URLSearchParams(window.location.search).get("assistant") ?? "agent";
}
