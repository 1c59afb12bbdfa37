/** A keyboard shortcut hint, hidden from screen readers (the shortcut is in aria-keyshortcuts). */
export function Kbd({ k }: { k: string }) {
  return <kbd class="kbd">{k}</kbd>;
}
