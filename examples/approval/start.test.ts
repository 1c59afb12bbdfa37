/** The README's main command serves the sample graph, seeds two reviews, and prints the URLs. */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "interlude-start-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm start", () => {
  it("serves the API and the inbox, with two deployments waiting for review", async () => {
    const child = spawn(process.execPath, [fileURLToPath(new URL("./start.mjs", import.meta.url))], {
      env: { ...process.env, PORT: "0", INTERLUDE_DB: join(dir, "start.sqlite") },
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      let out = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (d) => {
          out += d;
          const match = out.match(/Inbox for reviewers:\s+(http:\/\/\S+)\/inbox\//);
          if (match) resolve(match[1]!);
        });
        child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const inbox = await (await fetch(`${url}/inbox/interrupts`)).json();
      expect(inbox.total).toBe(2);
      expect(inbox.items.map((i: any) => i.value.action_request.args.service).sort()).toEqual(["billing", "search"]);
      const page = await fetch(`${url}/inbox/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<div id=");
    } finally {
      child.kill("SIGTERM");
    }
  });
});
