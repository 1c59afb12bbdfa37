// The sample chat page (packages/chat, built by `npm run build`) is served at /chat/ like the
// inbox at /inbox/: its files are public, the API it calls is not.
import { afterAll, beforeAll, expect, it } from "vitest";
import { json, type TestServer, testServer } from "./helpers.js";

let server: TestServer;
beforeAll(async () => {
  server = await testServer({ apiKeys: { "key-alice": "alice@example.com" } });
});
afterAll(async () => server?.dispose());

it("serves the chat page's files without a key, and its routes in the browser fall back to index.html", async () => {
  for (const path of ["/chat/", "/chat/?hook=react", "/chat/some/route"]) {
    const page = await fetch(`${server.url}${path}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("/chat/assets/");
  }
  expect((await fetch(`${server.url}/chat`, { redirect: "manual" })).headers.get("location")).toBe("/chat/");
  expect((await fetch(`${server.url}/chat/assets/missing.js`)).status).toBe(404);
});

it("the streaming protocol's routes need a key like the rest of the API", async () => {
  const command = { method: "POST", body: JSON.stringify({ id: 1, method: "state.get", params: {} }) };
  expect((await json(`${server.url}/threads/t1/commands`, command)).status).toBe(401);
  const withKey = await json(`${server.url}/threads/t1/commands`, { ...command, apiKey: "key-alice" });
  expect(withKey.body).toMatchObject({ type: "error", id: 1 });
});
