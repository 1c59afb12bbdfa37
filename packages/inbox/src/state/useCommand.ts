/** Runs `fn` for each keyboard command issued after the component mounted (never for an older one). */
import { useEffect, useRef } from "preact/hooks";

export function useCommand<C extends { seq: number }>(command: C | undefined, fn: (c: C) => void): void {
  const seenAtMount = useRef(command?.seq ?? 0);
  useEffect(() => {
    if (command && command.seq > seenAtMount.current) fn(command);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [command?.seq]);
}
