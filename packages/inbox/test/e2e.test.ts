// The reviewer's inbox in real headless Chromium against the real server: each story a
// reviewer lives through, from answering to racing a colleague to forking a thread.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { apiAs, REVIEWERS, useSetting } from "./e2e/harness";
import * as steps from "./e2e/steps";
import { openInbox, optionId, poll, screenshots, select } from "./e2e/steps";

const t = useSetting({ bob: true });

const pendingItem = (threadId: string) => steps.pendingItem(t.api, threadId);
const settled = (threadId: string) => steps.settled(t.api, threadId);

async function emailThread(to = "carol@example.com", subject = "Your refund") {
  const threadId = await t.api.startThread("email", { to, subject });
  return { threadId, item: await pendingItem(threadId) };
}

async function answersIn(threadId: string) {
  const history = (await t.api.history(threadId)) as Array<{
    metadata: { resume?: Array<{ by: string; answers: Record<string, unknown> }> };
  }>;
  return history.flatMap((s) => s.metadata?.resume ?? []);
}

describe("the reviewer's inbox", () => {
  it("asks for an API key, refuses a wrong one and signs in with the right one", async () => {
    const page = t.bob.page;
    await page.goto("/inbox/");
    await page.getByLabel("API key").fill("not-a-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await poll(() => page.getByRole("alert").textContent()).toContain("not accepted");
    await page.getByLabel("API key").fill(REVIEWERS.bob.key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("listbox", { name: "Pending interrupts" }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem("interlude.apiKey"))).toBe(REVIEWERS.bob.key);
  });

  it("accepts a HumanInterrupt: the item leaves and the action runs as proposed, recorded as alice", async () => {
    // The subject is quoted into the markdown description: raw HTML in it stays text.
    const { threadId, item } = await emailThread("dan@example.com", "Refund <img src=x onerror=alert(1)>");
    const page = t.alice.page;
    await select(page, item);
    await poll(() => page.locator(".markdown strong").textContent()).toBe("Refund <img src=x onerror=alert(1)>");
    expect(await page.locator(".detail img").count()).toBe(0);
    await page.getByRole("button", { name: /^Accept/ }).click();
    await page.locator(optionId(threadId, item.interrupt_id)).waitFor({ state: "detached" });
    expect(await settled(threadId)).toMatchObject({ outcome: "sent to dan@example.com", applied: 1 });
    expect((await answersIn(threadId)).map((r) => r.by)).toEqual([REVIEWERS.alice.identity]);
  });

  it("edits the arguments with the keyboard (e), then submits the edited action", async () => {
    const { threadId, item } = await emailThread("erin@example.com");
    const page = t.alice.page;
    await select(page, item);
    await page.keyboard.press("e");
    // The edit form opens with its first argument focused.
    await poll(() => page.getByLabel("To").evaluate((el) => el === document.activeElement)).toBe(true);
    await page.getByLabel("Subject").fill("Your refund (corrected)");
    await page.getByRole("button", { name: "Submit edit" }).click();
    expect(await settled(threadId)).toMatchObject({
      outcome: "sent edited to erin@example.com: Your refund (corrected)",
      applied: 1,
    });
  });

  it("responds in free text (r) instead of acting", async () => {
    const { threadId, item } = await emailThread("frank@example.com");
    const page = t.alice.page;
    await select(page, item);
    await page.keyboard.press("r");
    await page.getByLabel("Your response").fill("Call the customer first.");
    await page.getByRole("button", { name: "Send response" }).click();
    expect(await settled(threadId)).toMatchObject({
      outcome: "not sent; reviewer said: Call the customer first.",
      applied: 1,
    });
  });

  it("ignores (i) an item moved to with j/k", async () => {
    const first = await emailThread("gina@example.com");
    const second = await emailThread("hank@example.com");
    const page = t.alice.page;
    await select(page, first.item);
    await page.locator(optionId(second.threadId, second.item.interrupt_id)).waitFor();
    // The list is oldest first, so the second thread's item is right below the first's.
    await page.keyboard.press("j");
    await poll(() => page.locator(".detail .crumbs a").textContent()).toBe(second.threadId);
    await page.keyboard.press("k");
    await poll(() => page.locator(".detail .crumbs a").textContent()).toBe(first.threadId);
    await page.keyboard.press("j");
    await poll(() => page.locator(".detail .crumbs a").textContent()).toBe(second.threadId);
    await page.keyboard.press("i");
    expect(await settled(second.threadId)).toMatchObject({ outcome: "ignored", applied: 1 });
    expect((await t.api.state(first.threadId)).next).toEqual(["review"]);
  });

  it("shows the server's schema errors next to the fields, then takes a corrected answer", async () => {
    const threadId = await t.api.startThread("refund", { order: { id: "A-1001", total: 240 } });
    const item = await pendingItem(threadId);
    const page = t.alice.page;
    await select(page, item);
    await page.getByLabel("Amount (EUR)").fill("250");
    await page.getByRole("button", { name: "Submit answer" }).click();
    const amountError = page.locator(".field-number .field-error");
    await poll(() => amountError.textContent()).toBe("Refunds above 100 EUR need a manager");
    expect(await page.locator(".field-text .field-error").textContent()).toBe("Give a reason");
    expect(await page.getByLabel("Amount (EUR)").getAttribute("aria-invalid")).toBe("true");
    expect((await t.api.state(threadId)).next).toEqual(["ask"]);

    await page.getByLabel("Amount (EUR)").fill("80");
    await page.getByLabel("Reason").fill("Parcel arrived damaged");
    await page.getByRole("button", { name: "Submit answer" }).click();
    expect(await settled(threadId)).toMatchObject({
      refund: { amount: 80, reason: "Parcel arrived damaged", notify: true },
      applied: 1,
    });
  });

  it("two reviewers race on one item: one answer applies, the other sees who answered and with what", async () => {
    const { threadId, item } = await emailThread("ivy@example.com");
    await Promise.all([select(t.alice.page, item), select(t.bob.page, item)]);
    // Both click at the same moment. Whoever loses sees the conflict either from the server's
    // 409 or, if the winner's event arrived first, from the live update that disabled the form.
    await Promise.all([
      t.alice.page.getByRole("button", { name: /^Accept/ }).waitFor(),
      t.bob.page.getByRole("button", { name: /^Ignore/ }).waitFor(),
    ]);
    const click = (page: Page, name: string) =>
      page.evaluate(
        (label) =>
          [...document.querySelectorAll<HTMLButtonElement>(".detail button")]
            .find((b) => b.textContent!.startsWith(label))!
            .click(),
        name,
      );
    await Promise.all([click(t.alice.page, "Accept"), click(t.bob.page, "Ignore")]);
    expect(await settled(threadId)).toMatchObject({ applied: 1 });
    const answers = await answersIn(threadId);
    expect(answers).toHaveLength(1);
    const winner = answers[0]!.by === REVIEWERS.alice.identity ? "alice" : "bob";
    const loser = winner === "alice" ? t.bob : t.alice;
    const banner = loser.page.locator(".banner.warn");
    await poll(() => banner.textContent()).toContain(
      `Already answered by ${REVIEWERS[winner].identity} with ${winner === "alice" ? "accept" : "ignore"}`,
    );
    expect(
      await loser.page.getByRole("button", { name: winner === "alice" ? /^Ignore/ : /^Accept/ }).isDisabled(),
    ).toBe(true);
  });

  it("a reviewer without live updates who answers late gets the server's conflict, naming who answered", async () => {
    const { threadId, item } = await emailThread("nora@example.com");
    await t.bob.context.route("**/inbox/events", (route) => route.abort());
    try {
      await t.bob.page.reload();
      await select(t.bob.page, item);
      await t.api.call("POST", "/inbox/answer", {
        thread_id: threadId,
        interrupt_id: item.interrupt_id,
        answer: { type: "response", args: "On it." },
      });
      await t.bob.page.getByRole("button", { name: /^Accept/ }).click();
      await poll(() => t.bob.page.locator(".banner.warn").textContent()).toContain(
        'Already answered by alice@example.com with response "On it."',
      );
      expect(await settled(threadId)).toMatchObject({ outcome: "not sent; reviewer said: On it.", applied: 1 });
    } finally {
      await t.bob.context.unroute("**/inbox/events");
    }
  });

  it("updates the list live: a new interrupt appears and an answered one leaves, without reloading", async () => {
    const page = t.alice.page;
    await openInbox(page);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    // An earlier story's answer may still be on its way to this page: count from what the server
    // holds, once the page shows it, not from whatever the page shows now.
    const before = (await t.api.pending()).total as number;
    await poll(async () => Number(await page.getByTestId("count").textContent())).toBe(before);
    const { threadId, item } = await emailThread("jack@example.com", "Live one");
    await page.locator(optionId(threadId, item.interrupt_id)).waitFor();
    await poll(async () => Number(await page.getByTestId("count").textContent())).toBe(before + 1);

    // More work arrives for the screenshot: refunds waiting for a form answer, another email.
    await t.api.startThread("refund", { order: { id: "B-2044", total: 95 } });
    await t.api.startThread("email", { to: "olivia@example.com", subject: "Invoice 2291 is overdue" });
    await t.api.startThread("refund", { order: { id: "C-0381", total: 42.5 } });
    await select(page, item);
    mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: join(screenshots, "inbox.png") });

    await apiAs(t.server.url, "bob").call("POST", "/inbox/answer", {
      thread_id: threadId,
      interrupt_id: item.interrupt_id,
      answer: { type: "ignore", args: null },
    });
    await page.locator(optionId(threadId, item.interrupt_id)).waitFor({ state: "detached" });
    await poll(() => page.locator(".banner.warn").textContent()).toContain(
      "Already answered by bob@example.com with ignore",
    );
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
  });

  it("filters by graph and by text, and the count follows", async () => {
    // Its own refund to find, so this story does not lean on the threads an earlier one started.
    await t.api.startThread("refund", { order: { id: "D-7731", total: 12 } });
    const page = t.alice.page;
    await openInbox(page);
    await page.getByLabel("Graph").selectOption("refund");
    await poll(async () => {
      const graphs = await page.locator(".items .badge").allTextContents();
      return graphs.length > 0 && graphs.every((g) => g === "refund");
    }).toBe(true);
    await page.getByLabel("Search").fill("D-7731");
    await poll(() => page.getByTestId("count").textContent()).toBe("1");
    await poll(() => page.locator(".items .item-title").allTextContents()).toEqual(["Refund for order D-7731?"]);
    await page.getByLabel("Search").fill("");
    await page.getByLabel("Graph").selectOption("");
    await poll(async () => Number(await page.getByTestId("count").textContent())).toBeGreaterThan(1);
  });

  it("forks a thread from its timeline with an edited state, and compares two checkpoints", async () => {
    const { threadId, item } = await emailThread("kim@example.com", "Refund for order 7");
    await t.api.call("POST", "/inbox/answer", {
      thread_id: threadId,
      interrupt_id: item.interrupt_id,
      answer: { type: "response", args: "Wrong recipient." },
    });
    await settled(threadId);
    const page = t.alice.page;
    await page.goto(`/inbox/#/thread/${threadId}`);
    await page.getByRole("list", { name: "Checkpoints" }).waitFor();
    await poll(() => page.locator(".answer-line").first().textContent()).toContain("alice@example.com answered");

    // Fork from the checkpoint where the review was waiting, with a different recipient.
    const asked = page.locator(".tl-entry", { has: page.locator(".asked-line") }).first();
    await asked.getByRole("button", { name: /^Fork from step/ }).click();
    const editor = page.getByLabel("State for the new branch");
    const state = JSON.parse(await editor.inputValue());
    await editor.fill(JSON.stringify({ ...state, to: "lee@example.com" }, null, 2));
    await page.getByRole("button", { name: "Fork and run" }).click();
    await poll(() => page.getByRole("status").textContent()).toContain("Forked from step");

    // The new branch pauses at review again, asking about the new recipient; the old one is kept.
    await poll(async () => (await t.api.state(threadId)).next).toEqual(["review"]);
    expect((await t.api.state(threadId)).values).toMatchObject({ to: "lee@example.com" });
    await poll(() => page.locator('.graph .node.paused[data-node="review"]').count()).toBe(1);
    expect(await page.locator(".tl-entry.other-branch").count()).toBeGreaterThan(0);

    // Diff: the original paused checkpoint against the fork's.
    await asked.getByRole("checkbox").check();
    await page.locator(".tl-entry.head").getByRole("checkbox").check();
    await poll(() => page.locator(".diff tbody").textContent()).toContain("lee@example.com");
    await page.screenshot({ path: join(screenshots, "timeline.png"), fullPage: true });
  });

  it("replays a finished thread from an earlier checkpoint: the steps after it run again, on a new branch", async () => {
    const { threadId, item } = await emailThread("max@example.com");
    await t.api.call("POST", "/inbox/answer", {
      thread_id: threadId,
      interrupt_id: item.interrupt_id,
      answer: { type: "ignore", args: null },
    });
    await settled(threadId);
    const before = (await t.api.history(threadId)).length;
    const page = t.alice.page;
    await page.goto(`/inbox/#/thread/${threadId}`);
    // Replay from the checkpoint before the draft: draft runs again and the review asks again.
    const beforeDraft = page.locator(".tl-entry", { hasText: "next: draft" }).first();
    await beforeDraft.getByRole("button", { name: /^Replay from step/ }).click();
    await poll(() => page.getByRole("status").textContent()).toContain("Replayed from step 0");
    expect((await t.api.history(threadId)).length).toBeGreaterThan(before);
    expect((await t.api.state(threadId)).next).toEqual(["review"]);
    await poll(() => page.locator(".tl-entry.other-branch").count()).toBeGreaterThan(0);
    expect((await t.api.pending(`?thread_id=${threadId}`)).total).toBe(1);
  });
});
