// A tool-review agent that pauses in one process and resumes in another, once per decision:
// approve (the email goes out as proposed), edit (it goes to whom the reviewer chose), reject
// (nothing is sent; the model reads why). Usage: node tool-review.mjs [sqlite file | postgres URL]
// With OPENAI_API_KEY or ANTHROPIC_API_KEY set, a real model proposes the call.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const scripted = !process.env.OPENAI_API_KEY && !process.env.ANTHROPIC_API_KEY;
const dir = mkdtempSync(join(tmpdir(), "interlude-agent-"));
const store = process.argv[2] ?? join(dir, "agent.sqlite");
const sendLog = join(dir, "sent.log");
const step = fileURLToPath(new URL("./lib/step.mjs", import.meta.url));
const inOwnProcess = (...args) =>
  execFileSync(process.execPath, [step, ...args], { encoding: "utf8", env: { ...process.env, SEND_LOG: sendLog } });
const sends = () => (existsSync(sendLog) ? readFileSync(sendLog, "utf8").trim().split("\n").map(JSON.parse) : []);

const decisions = {
  approve: { type: "approve" },
  edit: {
    type: "edit",
    editedAction: { name: "send_email", args: { to: "carol@example.com", subject: "Lunch", body: "Noon?" } },
  },
  reject: { type: "reject", message: "Do not email Bob today." },
};

try {
  for (const [name, decision] of Object.entries(decisions)) {
    const thread = `${name}-${Date.now()}`;
    const before = sends().length;
    const request = JSON.parse(inOwnProcess("start", store, thread, "Invite Bob to lunch"));
    if (!request) {
      console.log(`[${name}] the model answered without proposing a tool call`);
      continue;
    }
    console.log(
      `[${name}] asks:`,
      request.actionRequests.map((a) => `${a.name}(${JSON.stringify(a.args)})`).join(", "),
    );
    const conversation = JSON.parse(inOwnProcess("resume", store, thread, JSON.stringify(decision)));
    console.log(`[${name}] answer:`, conversation.at(-1).content);
    const sent = sends().slice(before);
    console.log(
      `[${name}] emails sent: ${sent.length}${sent.length ? ` (to ${sent.map((s) => s.to).join(", ")})` : ""}`,
    );
    // The scripted model proposes exactly one send; a real model may propose more.
    if (!scripted) assert.ok(name !== "reject" || sent.length === 0);
    else assert.equal(sent.length, name === "reject" ? 0 : 1);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
