// Reviewing an agent's tool calls in real headless Chromium against the real server: the
// request of LangChain v1's humanInTheLoopMiddleware (several calls at once, each with the
// decisions it allows), answered with { decisions }, and the thread read as a conversation.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useSetting } from "./e2e/harness";
import { optionId, pendingItem, poll, screenshots, select, settled } from "./e2e/steps";

const t = useSetting();

let threads = 0;
/** A thread of the agent paused on its three calls; the token makes its calls its own. */
async function agentThread() {
  const token = `t${++threads}-${Date.now().toString(36)}`;
  const threadId = await t.api.startThread("agent", { messages: [{ role: "user", content: token }] });
  return { token, threadId, item: await pendingItem(t.api, threadId) };
}

/** The tools that ran for this token, in order, from the log the fixture's tools append to. */
function toolRuns(token: string): Array<{ tool: string; args: Record<string, unknown> }> {
  const file = join(t.server.dir, "tools.log");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((run) => JSON.stringify(run.args).includes(token));
}

const call = (page: Page, name: string) =>
  page.getByRole("listitem").filter({ has: page.getByRole("heading", { name, exact: true }) });

async function decisionsSent(threadId: string) {
  const history = (await t.api.history(threadId)) as Array<{ metadata: { resume?: Array<{ answers: object }> } }>;
  return history.flatMap((s) => s.metadata?.resume ?? []).flatMap((r) => Object.values(r.answers));
}

describe("tool review in the inbox", () => {
  it("shows every call with the decisions it allows; approve, edit and reject go out as { decisions } and each tool runs once", async () => {
    const { token, threadId, item } = await agentThread();
    const page = t.alice.page;
    await select(page, item);
    await poll(() => page.locator(".tool-call .action-name").allTextContents()).toEqual([
      "send_email",
      "delete_file",
      "issue_refund",
    ]);
    const buttons = (name: string) =>
      call(page, name)
        .getByRole("group", { name: `Decision for ${name}` })
        .getByRole("button")
        .allTextContents();
    expect(await buttons("send_email")).toEqual(["Approve a", "Edit e", "Reject r"]);
    expect(await buttons("delete_file")).toEqual(["Approve a", "Reject r"]);
    expect(await buttons("issue_refund")).toEqual(["Approve a", "Edit e", "Reject r"]);
    expect(await call(page, "send_email").locator(".markdown strong").textContent()).toBe("recipient");
    const send = page.getByRole("button", { name: "Send decisions" });
    expect(await send.isDisabled()).toBe(true);
    mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: join(screenshots, "tool-review.png"), fullPage: true });

    // Edit send_email in the form made from the tool's zod schema; the browser checks it first.
    const email = call(page, "send_email");
    await email.getByRole("button", { name: /^Edit/ }).click();
    await poll(() => email.getByLabel("To").inputValue()).toBe("carol@example.com");
    await email.getByLabel("To").fill("not-an-address");
    await email.getByLabel("Subject").fill("");
    await email.getByRole("button", { name: "Use these arguments" }).click();
    await poll(() => email.locator(".field-text .field-error").allTextContents()).toEqual([
      'String does not match format "email".',
      "String is too short (0 < 1).",
    ]);
    expect(await email.getByLabel("To").getAttribute("aria-invalid")).toBe("true");
    await email.getByLabel("To").fill("dave@example.com");
    await email.getByLabel("Subject").fill(`Order ${token} (corrected)`);
    await email.getByLabel("Urgent").check();
    await email.getByRole("button", { name: "Use these arguments" }).click();
    await poll(() => email.locator(".draft strong").textContent()).toBe("Edited");

    // Reject delete_file with a reason for the model.
    const del = call(page, "delete_file");
    await del.getByRole("button", { name: /^Reject/ }).click();
    await del.getByLabel(/Why not/).fill("Keep the log.");
    await del.getByRole("button", { name: "Reject the call" }).click();
    await poll(() => del.locator(".draft").textContent()).toContain("Keep the log.");

    // issue_refund's schema is not in the request: its arguments are edited as JSON, which must be an object.
    const refund = call(page, "issue_refund");
    await refund.getByRole("button", { name: /^Edit/ }).click();
    const json = refund.getByRole("textbox", { name: "Arguments (JSON)" });
    expect(JSON.parse(await json.inputValue())).toEqual({ order: token, amount: 30 });
    await json.fill("[30]");
    await refund.getByRole("button", { name: "Use these arguments" }).click();
    await poll(() => refund.locator(".field-error").textContent()).toBe(
      'Instance type "array" is invalid. Expected "object".',
    );
    await json.fill(JSON.stringify({ order: token, amount: 12.5 }));
    await refund.getByRole("button", { name: "Use these arguments" }).click();
    await poll(() => refund.locator(".draft strong").textContent()).toBe("Edited");

    await send.click();
    await page.locator(optionId(threadId, item.interrupt_id)).waitFor({ state: "detached" });
    await settled(t.api, threadId);
    expect(await decisionsSent(threadId)).toEqual([
      {
        decisions: [
          {
            type: "edit",
            editedAction: {
              name: "send_email",
              args: {
                to: "dave@example.com",
                subject: `Order ${token} (corrected)`,
                body: "Your refund is on its way.",
                urgent: true,
              },
            },
          },
          { type: "reject", message: "Keep the log." },
          { type: "edit", editedAction: { name: "issue_refund", args: { order: token, amount: 12.5 } } },
        ],
      },
    ]);
    expect(toolRuns(token)).toEqual([
      {
        tool: "send_email",
        args: {
          to: "dave@example.com",
          subject: `Order ${token} (corrected)`,
          body: "Your refund is on its way.",
          urgent: true,
        },
      },
      { tool: "issue_refund", args: { order: token, amount: 12.5 } },
    ]);
  });

  it("approves every call from the keyboard (a) and sends them with Enter", async () => {
    const { token, threadId, item } = await agentThread();
    const page = t.alice.page;
    await select(page, item);
    const send = page.getByRole("button", { name: "Send decisions" });
    for (const n of [1, 2, 3]) {
      await page.keyboard.press("a");
      await poll(() => page.locator(".tool-call.decided.approve").count()).toBe(n);
    }
    await poll(() => send.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    await settled(t.api, threadId);
    expect(toolRuns(token).map((r) => r.tool)).toEqual(["send_email", "delete_file", "issue_refund"]);
  });

  it("shows the thread as a conversation (messages, tool calls with their results), and the raw state on request", async () => {
    const { token, threadId, item } = await agentThread();
    await t.api.call("POST", "/inbox/answer", {
      thread_id: threadId,
      interrupt_id: item.interrupt_id,
      answer: { decisions: [{ type: "approve" }, { type: "reject", message: "Not this one." }, { type: "approve" }] },
    });
    await settled(t.api, threadId);
    const page = t.alice.page;
    await page.goto(`/inbox/#/thread/${threadId}`);
    const chat = page.getByRole("list", { name: "Conversation" });
    await chat.waitFor();
    const turns = chat.locator(":scope > li");
    expect(await turns.locator(".speaker").allTextContents()).toEqual(["User", "Assistant", "Assistant"]);
    expect(await turns.nth(0).textContent()).toContain(token);
    expect(await turns.nth(1).locator(".markdown strong").textContent()).toBe(token);
    const result = (tool: string) => turns.nth(1).locator(`.tool-use[data-tool="${tool}"] .tool-output`);
    expect(await result("send_email").textContent()).toContain(`Email "Order ${token}" sent to carol@example.com.`);
    expect(await result("delete_file").getAttribute("class")).toContain("failed");
    expect(await result("delete_file").textContent()).toContain("Not this one.");
    expect(await result("issue_refund").textContent()).toContain(`Refunded 30 EUR on order ${token}.`);
    // The last turn lists what the tools said (the rejection first: the review node wrote it).
    expect(await turns.nth(2).locator("li").allTextContents()).toEqual([
      "Not this one.",
      `Email "Order ${token}" sent to carol@example.com.`,
      `Refunded 30 EUR on order ${token}.`,
    ]);

    mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: join(screenshots, "conversation.png"), fullPage: true });

    await page.getByRole("button", { name: "Show raw JSON" }).click();
    await poll(() => page.locator("#state-title").textContent()).toBe("Current state");
    expect(await page.getByRole("group", { name: "Current state" }).textContent()).toContain("messages");
    await page.getByRole("button", { name: "Show the conversation" }).click();
    await chat.waitFor();
  });
});
