/** Single-key shortcuts, ignored while the reviewer is typing in a field. */
import { useEffect, useRef } from "preact/hooks";

const typing = (t: EventTarget | null) =>
  t instanceof HTMLElement && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName));

export function useShortcuts(handlers: Record<string, () => void>): void {
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && typing(e.target)) return (e.target as HTMLElement).blur();
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
      const handler = current.current[e.key];
      if (!handler) return;
      e.preventDefault();
      handler();
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);
}
