// The sample chat page in real headless Chromium against the server `npm start` runs: a user
// chats with the sample agent through LangGraph's React `useStream` hooks, watches the answer
// stream in, reviews the agent's tool calls inline, and reloads mid-answer.

import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, type ChatServer, openBrowser, startChatServer } from "./e2e/harness";

// The README's pictures: `UPDATE_SCREENSHOTS=1 npx vitest run packages/chat` refreshes them;
// otherwise they go to a temp dir, so a test run leaves the work tree clean.
const screenshots = process.env.UPDATE_SCREENSHOTS
  ? resolve(dirname(fileURLToPath(import.meta.url)), "../../../docs/screenshots")
  : join(tmpdir(), "interlude-chat-screenshots");

let server: ChatServer;
let browser: Browser;

beforeAll(async () => {
  server = await startChatServer();
  browser = await openBrowser(server.url);
  mkdirSync(screenshots, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 50 });

/** The end of the offline model's long answer (examples/chat/lib/chat-script.mjs). */
const ANSWER_END = "before it runs.";

async function openChat(page: Page, hook: "sdk" | "react") {
  await page.goto(hook === "react" ? "/chat/?hook=react" : "/chat/");
  await page.getByRole("textbox", { name: "Message" }).waitFor();
}

async function send(page: Page, text: string) {
  await page.getByRole("textbox", { name: "Message" }).fill(text);
  await page.getByRole("button", { name: "Send", exact: true }).click();
}

const aiTexts = (page: Page) => page.locator('[data-role="ai"] .text').allTextContents();
const threadOf = (page: Page) => new URL(page.url()).searchParams.get("thread");

/** Records every distinct text the last assistant bubble shows, as the DOM changes. */
async function watchAssistant(page: Page) {
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __seen: string[] }).__seen = seen;
    new MutationObserver(() => {
      const bubbles = document.querySelectorAll('[data-role="ai"] .text');
      const text = bubbles[bubbles.length - 1]?.textContent ?? "";
      if (text && seen.at(-1) !== text) seen.push(text);
    }).observe(document.querySelector("main")!, { childList: true, subtree: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { __seen: string[] }).__seen);
}

async function proposeEmail(page: Page, to: string) {
  await send(page, `please send an email to ${to}`);
  const review = page.getByTestId("review");
  await review.waitFor();
  await poll(() => review.locator("pre.args").textContent()).toContain(to);
  return review;
}

async function finished(page: Page, prefix: string) {
  await poll(async () => (await aiTexts(page)).some((t) => t.startsWith(prefix))).toBe(true);
  await poll(() => page.getByTestId("streaming").count()).toBe(0);
}

const sendsTo = (to: string) => server.sends().filter((s) => s.to === to);

describe.each(["sdk", "react"] as const)("the chat page on %s's useStream", (hook) => {
  let page: Page;
  beforeAll(async () => {
    page = browser.page;
  });

  it("streams an answer into the assistant's bubble in several chunks", async () => {
    await openChat(page, hook);
    const seen = await watchAssistant(page);
    await send(page, "hello there");
    await poll(async () => (await aiTexts(page)).at(-1) ?? "").toContain(ANSWER_END);
    const texts = await seen();
    // Each text the bubble showed extends the previous one, and there were several.
    expect(texts.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < texts.length; i++) expect(texts[i]!.startsWith(texts[i - 1]!)).toBe(true);
    expect(texts.at(-1)).toContain('You wrote: "hello there"');
    expect(threadOf(page)).toBeTruthy();
  });

  it("pauses a tool call for review; approving runs it once", async () => {
    await openChat(page, hook);
    const to = `approve-${hook}@example.com`;
    const review = await proposeEmail(page, to);
    if (hook === "sdk") await page.screenshot({ path: join(screenshots, "chat-review.png") });
    expect(sendsTo(to)).toHaveLength(0);
    await review.getByRole("button", { name: "Approve" }).click();
    await finished(page, "Done:");
    expect(sendsTo(to)).toHaveLength(1);
    const state = await server.state(threadOf(page)!);
    expect(state.next).toEqual([]);
    expect(state.values.messages.filter((m) => m.type === "tool")).toHaveLength(1);
    if (hook === "sdk") await page.screenshot({ path: join(screenshots, "chat.png") });
  });

  it("editing the call's arguments runs the edited call once", async () => {
    await openChat(page, hook);
    const proposed = `proposed-${hook}@example.com`;
    const edited = `edited-${hook}@example.com`;
    const review = await proposeEmail(page, proposed);
    await review.getByRole("button", { name: "Edit" }).click();
    const args = review.getByTestId("edit-args");
    await args.fill((await args.inputValue()).replace(proposed, edited));
    await review.getByRole("button", { name: "Send edited call" }).click();
    await finished(page, "Done:");
    expect(sendsTo(edited)).toHaveLength(1);
    expect(sendsTo(proposed)).toHaveLength(0);
    expect((await aiTexts(page)).at(-1)).toContain(edited);
  });

  it("rejecting the call runs nothing and the model reads why", async () => {
    await openChat(page, hook);
    const to = `reject-${hook}@example.com`;
    const review = await proposeEmail(page, to);
    await review.getByRole("button", { name: "Reject" }).click();
    await review.getByTestId("reject-reason").fill("Not today.");
    await review.getByRole("button", { name: "Confirm rejection" }).click();
    await finished(page, "Not sent:");
    expect((await aiTexts(page)).at(-1)).toContain("Not today.");
    expect(sendsTo(to)).toHaveLength(0);
  });

  it("a reload while a call waits for review shows the conversation and the review again", async () => {
    await openChat(page, hook);
    const to = `reload-${hook}@example.com`;
    await proposeEmail(page, to);
    const threadId = threadOf(page);
    await page.reload();
    const review = page.getByTestId("review");
    await poll(() => review.locator("pre.args").textContent()).toContain(to);
    expect(threadOf(page)).toBe(threadId);
    await poll(() => page.locator('[data-role="human"]').allTextContents()).toEqual([`please send an email to ${to}`]);
    await review.getByRole("button", { name: "Approve" }).click();
    await finished(page, "Done:");
    expect(sendsTo(to)).toHaveLength(1);
  });

  it("a reload mid-answer rejoins the running stream and shows the thread's history", async () => {
    await openChat(page, hook);
    await send(page, "tell me about yourself");
    // Part of the answer is on the page, not all of it.
    await poll(async () => ((await aiTexts(page)).at(-1) ?? "").length).toBeGreaterThan(0);
    expect((await aiTexts(page)).at(-1)).not.toContain(ANSWER_END);
    const threadId = threadOf(page);
    await page.reload();
    await poll(async () => (await aiTexts(page)).at(-1) ?? "").toContain(ANSWER_END);
    expect(threadOf(page)).toBe(threadId);
    await poll(() => page.locator('[data-role="human"]').allTextContents()).toEqual(["tell me about yourself"]);
    const answers = await aiTexts(page);
    expect(answers).toHaveLength(1);
    expect(answers[0]).toContain('You wrote: "tell me about yourself"');
  });
});
