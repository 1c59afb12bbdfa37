/**
 * @langchain/core is an optional peer: a process where it cannot be loaded still runs graphs,
 * and only the features that need it ("messages", callbacks, streamEvents) fail, with a typed
 * error. Run in a child process whose module resolver refuses every @langchain/ specifier.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const run = promisify(execFile);

const blockLangChain = `export async function resolve(specifier, context, next) {
  if (specifier.startsWith("@langchain/")) throw Object.assign(new Error("blocked " + specifier), { code: "ERR_MODULE_NOT_FOUND" });
  return next(specifier, context);
}`;

const script = `
import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(blockLangChain)}));
const { Annotation, ChatModelStreamImpl, InMemoryStore, START, StateGraph } = await import("@interlude/core");
const State = Annotation.Root({ n: Annotation({ reducer: (a, b) => a + b, default: () => 0 }) });
const graph = new StateGraph(State).addNode("add", () => ({ n: 1 })).addEdge(START, "add").compile({ store: new InMemoryStore() });
const out = { invoke: (await graph.invoke({ n: 1 })).n, updates: [] };
for await (const chunk of await graph.stream({ n: 1 }, { streamMode: ["updates", "values", "custom"] })) out.updates.push(chunk[0]);
const failure = async (body) => { try { await body(); return "no error"; } catch (e) { return e.code; } };
// An idle timeout counts LangChain events through a handler of its own: no LangChain needed, even for a subgraph the node runs.
const inner = new StateGraph(State).addNode("add", () => ({ n: 1 })).addEdge(START, "add").compile();
const timed = new StateGraph(State)
  .addNode("sub", async (s, config) => inner.invoke(s, config), { timeout: { idleTimeout: 5000 } })
  .addEdge(START, "sub")
  .compile();
out.idleTimeout = (await timed.invoke({ n: 1 })).n;
out.pipe = await failure(() => graph.pipe({ invoke: (x) => x }));
out.modelStream = await failure(() => new ChatModelStreamImpl([]));
out.isModelStream = {} instanceof ChatModelStreamImpl;
out.messages = await failure(() => graph.stream({ n: 1 }, { streamMode: "messages" }));
out.callbacks = await failure(() => graph.invoke({ n: 1 }, { callbacks: [] }));
out.events = await failure(async () => { for await (const _ of graph.streamEvents({ n: 1 }, { version: "v2" })); });
// streamEvents v3 needs LangChain only for what models and tools say: a plain graph streams all the rest.
const v3 = await graph.streamEvents({ n: 1 }, { version: "v3" });
const methods = new Set();
for await (const event of v3) methods.add(event.method);
out.v3 = { methods: [...methods], output: await v3.output };
console.log(JSON.stringify(out));
`;

it("graphs run without @langchain/core (streamEvents v3 too); messages, callbacks and streamEvents v2 then fail with LANGCHAIN_MISSING", async () => {
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: process.cwd() });
  expect(JSON.parse(stdout)).toEqual({
    invoke: 2,
    idleTimeout: 3,
    pipe: "LANGCHAIN_NOT_LOADED",
    modelStream: "LANGCHAIN_NOT_LOADED",
    isModelStream: false,
    updates: ["values", "updates", "values"],
    messages: "LANGCHAIN_MISSING",
    callbacks: "LANGCHAIN_MISSING",
    events: "LANGCHAIN_MISSING",
    v3: { methods: ["lifecycle", "checkpoints", "values", "tasks", "updates"], output: { n: 2 } },
  });
});
