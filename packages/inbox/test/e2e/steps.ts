// Steps the end-to-end stories share: waiting, finding an item, selecting it, waiting for a thread to settle.
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import type { apiAs } from "./harness";

type Api = ReturnType<typeof apiAs>;

// The README's screenshots are the tests' pictures: `UPDATE_SCREENSHOTS=1 npm test -- packages/inbox`
// refreshes them; otherwise they go to a temp dir, so a test run leaves the work tree clean.
export const screenshots = process.env.UPDATE_SCREENSHOTS
  ? resolve(dirname(fileURLToPath(import.meta.url)), "../../../../docs/screenshots")
  : join(tmpdir(), "interlude-inbox-screenshots");
export interface Item {
  thread_id: string;
  interrupt_id: string;
}

// Generous: the suite may share the machine with the rest of `npm test`.
export const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 8000, interval: 50 });

export const optionId = (threadId: string, interruptId: string) =>
  `#item-${`${threadId}/${interruptId}`.replace(/[^\w-]/g, "_")}`;

export async function pendingItem(api: Api, threadId: string): Promise<Item> {
  const page = await api.pending(`?thread_id=${threadId}`);
  expect(page.items).toHaveLength(1);
  return page.items[0] as Item;
}

export async function openInbox(page: Page) {
  if (!page.url().includes("/inbox/")) await page.goto("/inbox/");
  await page.getByRole("listbox", { name: "Pending interrupts" }).waitFor();
}

export async function select(page: Page, item: Item) {
  await openInbox(page);
  // Dispatched on the element, not at its coordinates: live updates may shift the list under a pointer click.
  await page.locator(optionId(item.thread_id, item.interrupt_id)).dispatchEvent("click");
  await poll(() => page.locator(".detail .crumbs a").textContent()).toBe(item.thread_id);
}

/** The thread's values once its run has ended (nothing left to run or ask). */
export async function settled(api: Api, threadId: string) {
  await poll(async () => (await api.state(threadId)).next).toEqual([]);
  return (await api.state(threadId)).values;
}
