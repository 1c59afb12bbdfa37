/** A keyboard shortcut hint, hidden from screen readers (the shortcut is in aria-keyshortcuts). */
export function Kbd({ k }: { k: string }) {
  return (
    <kbd aria-hidden="true" class="kbd">
      {k}
    </kbd>
  );
}
