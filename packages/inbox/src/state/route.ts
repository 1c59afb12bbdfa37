/** Hash routes, so the server only has to serve one index.html under /inbox/. */
import { useEffect, useState } from "preact/hooks";

export type Route = { view: "inbox"; threadId?: string; interruptId?: string } | { view: "thread"; threadId: string };

function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "thread" && parts[1]) return { view: "thread", threadId: parts[1] };
  if (parts[0] === "item" && parts[1] && parts[2]) return { view: "inbox", threadId: parts[1], interruptId: parts[2] };
  return { view: "inbox" };
}

export const threadHref = (threadId: string) => `#/thread/${encodeURIComponent(threadId)}`;
export const itemHref = (threadId: string, interruptId: string) =>
  `#/item/${encodeURIComponent(threadId)}/${encodeURIComponent(interruptId)}`;

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
