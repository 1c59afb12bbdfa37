/**
 * `fn` over `items`, at most `limit` at once, results in the items' order: a step's tasks under
 * `maxConcurrency`, a batch's runs. A synchronous result is taken as it is.
 */
export async function mapWithLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => R | Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await fn(items[i]!, i);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/** A run's `maxConcurrency`, checked: a positive whole number, or undefined for no limit. */
export function concurrencyLimit(value: unknown, refuse: (message: string) => Error): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number" && Number.isInteger(value) && value > 0) return value;
  throw refuse(`maxConcurrency must be a whole number above 0 (tasks run at once in a step); got ${String(value)}.`);
}
