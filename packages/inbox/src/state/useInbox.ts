/** The pending interrupts for the current filter, kept fresh by the server's event stream. */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { Api } from "../api/client";
import { subscribeToEvents } from "../api/events";
import type { InboxFilter, InboxItem, Resolution } from "../api/types";

export interface InboxState {
  items: InboxItem[];
  total: number;
  loading: boolean;
  error?: string;
  live: boolean;
  /** interrupt id -> how it was resolved, for items answered while open. */
  resolved: Map<string, Resolution>;
  refresh: () => void;
}

export const itemKey = (i: { thread_id?: string; interrupt_id: string }) => `${i.thread_id ?? ""}/${i.interrupt_id}`;

export function useInbox(api: Api, apiKey: string | null, filter: InboxFilter): InboxState {
  const [items, setItems] = useState<InboxItem[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string>();
  const [live, setLive] = useState(false);
  const [resolved, setResolved] = useState(new Map<string, Resolution>());
  const generation = useRef(0);
  const filterKey = JSON.stringify(filter);

  const refresh = useCallback(() => {
    const mine = ++generation.current;
    api.listInterrupts({ ...filter, limit: 200 }).then(
      (page) => {
        if (mine !== generation.current) return;
        setItems(page.items);
        setTotal(page.total);
        setError(undefined);
        setLoading(false);
      },
      (e: Error) => {
        if (mine !== generation.current) return;
        setError(e.message);
        setLoading(false);
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, filterKey]);

  useEffect(refresh, [refresh]);

  // Events can come in bursts (a run pausing on several interrupts): refresh once per burst.
  const refreshSoon = useRef<() => void>(() => {});
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    refreshSoon.current = () => {
      clearTimeout(timer);
      timer = setTimeout(refresh, 60);
    };
    return () => clearTimeout(timer);
  }, [refresh]);

  useEffect(
    () =>
      subscribeToEvents({
        url: `${location.origin}/inbox/events`,
        apiKey,
        onStatus: (s) => {
          setLive(s === "open");
          if (s === "open") refreshSoon.current();
        },
        onMessage: ({ event, data }) => {
          if (event === "interrupt.resolved" && data && typeof data === "object") {
            const r = data as Resolution;
            setResolved((prev) => new Map(prev).set(itemKey(r), r));
          }
          // `resync`: the server may have missed other servers' events; the list is read again.
          if (event.startsWith("interrupt.") || event === "resync") refreshSoon.current();
        },
      }),
    [apiKey],
  );

  return { items, total, loading, error, live, resolved, refresh };
}
