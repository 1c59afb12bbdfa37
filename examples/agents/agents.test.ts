/**
 * Agents across processes: a thread paused by one process is resumed by another, on a SQLite
 * file and on Postgres; LangChain messages come back as the user's classes even when nothing in
 * the reading process loaded @langchain/core first.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../test/setup/urls.js";

const dir = mkdtempSync(join(tmpdir(), "interlude-agents-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const offline = { ...process.env, OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" };
const here = fileURLToPath(new URL(".", import.meta.url));

function node(args: string[], input?: string): string {
  return execFileSync(process.execPath, args, { encoding: "utf8", env: offline, cwd: here, input });
}

// The SQLite run is examples.test.ts's (agents/tool-review.mjs).
describe("tool review across processes", () => {
  it("approve, edit and reject on Postgres: approved and edited calls run once, rejected ones never", () => {
    const output = node(["tool-review.mjs", testPostgresUrl()]);
    expect(output).toMatch(
      /\[approve\] emails sent: 1[\s\S]*\[edit\] emails sent: 1 \(to carol[\s\S]*\[reject\] emails sent: 0/,
    );
  });
});

// Written by one process, read by another that imports only Interlude and the saver: the
// messages are revived with the @langchain/core the user would import (instanceof holds).
const writer = `
import { SqliteSaver } from "@interlude/checkpoint-sqlite";
import { Annotation, START, StateGraph } from "@interlude/core";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { Document } from "@langchain/core/documents";
const State = Annotation.Root({ last: Annotation(), docs: Annotation() });
const graph = new StateGraph(State)
  .addNode("n", () => ({ last: new AIMessage({ content: "hi", id: "m1", tool_calls: [{ name: "t", args: { a: 1 }, id: "c1", type: "tool_call" }] }), docs: [new Document({ pageContent: "p", metadata: { k: 1 } })] }))
  .addEdge(START, "n")
  .compile({ checkpointer: SqliteSaver.fromConnString(process.argv[1]) });
await graph.invoke({ last: new HumanMessage("q") }, { configurable: { thread_id: "t" } });
`;
const reader = `
import { SqliteSaver } from "@interlude/checkpoint-sqlite";
import { Annotation, START, StateGraph } from "@interlude/core";
const State = Annotation.Root({ last: Annotation(), docs: Annotation() });
const graph = new StateGraph(State).addNode("n", () => ({})).addEdge(START, "n")
  .compile({ checkpointer: SqliteSaver.fromConnString(process.argv[1]) });
const config = { configurable: { thread_id: "t" } };
let values;
if (process.argv[2] === "history") {
  const history = [];
  for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
  values = history[0].values;
} else values = (await graph.getState(config)).values;
const { AIMessage } = await import("@langchain/core/messages");
const { Document } = await import("@langchain/core/documents");
console.log(JSON.stringify({
  ai: values.last instanceof AIMessage, id: values.last.id, calls: values.last.tool_calls,
  doc: values.docs[0] instanceof Document, page: values.docs[0].pageContent,
}));
`;

describe("LangChain objects in another process", () => {
  it("come back as instances of the user's classes, without the reader loading @langchain/core first (getState, getStateHistory)", () => {
    const file = join(dir, "values.sqlite");
    node(["--input-type=module", "-e", writer, file]);
    for (const how of ["state", "history"]) {
      const read = JSON.parse(node(["--input-type=module", "-e", reader, file, how]));
      expect(read).toEqual({
        ai: true,
        id: "m1",
        calls: [{ name: "t", args: { a: 1 }, id: "c1", type: "tool_call" }],
        doc: true,
        page: "p",
      });
    }
  });
});
