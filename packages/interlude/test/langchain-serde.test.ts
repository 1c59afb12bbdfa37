/** Point 1 of issue 12: LangChain objects are stored and come back as the user's classes. */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import {
  Annotation,
  defaultSerializer,
  loadLangChain,
  MemorySaver,
  registerSerializable,
  SerializationError,
  START,
  StateGraph,
} from "@interlude/core";
import { Document } from "@langchain/core/documents";
import { Serializable } from "@langchain/core/load/serializable";
import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";

const roundTrip = <T>(value: T): T => defaultSerializer.loads(defaultSerializer.dumps(value)) as T;

describe("LangChain objects in the serializer", () => {
  it("gives back messages, chunks and documents as instances of the same classes, with their fields", () => {
    const ai = new AIMessage({
      content: "calling",
      tool_calls: [{ name: "search", args: { q: "x" }, id: "c1", type: "tool_call" }],
      usage_metadata: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
    });
    const value = {
      messages: [new SystemMessage("be brief"), new HumanMessage({ content: "hi", id: "h1" }), ai],
      tool: new ToolMessage({ content: "found", tool_call_id: "c1", name: "search", status: "error" }),
      chunk: new AIMessageChunk({ content: "par", id: "k1" }),
      docs: new Map([["d", new Document({ pageContent: "text", metadata: { page: 2 }, id: "doc1" })]]),
    };
    const back = roundTrip(value);
    expect(back.messages[0]).toBeInstanceOf(SystemMessage);
    expect(back.messages[1]).toBeInstanceOf(HumanMessage);
    expect(back.messages[1]!.id).toBe("h1");
    expect(back.messages[2]).toBeInstanceOf(AIMessage);
    expect((back.messages[2] as AIMessage).tool_calls).toEqual(ai.tool_calls);
    expect((back.messages[2] as AIMessage).usage_metadata).toEqual(ai.usage_metadata);
    expect(back.tool).toBeInstanceOf(ToolMessage);
    expect(back.tool.status).toBe("error");
    expect(back.tool.tool_call_id).toBe("c1");
    expect(back.chunk).toBeInstanceOf(AIMessageChunk);
    expect(back.chunk.content).toBe("par");
    const doc = back.docs.get("d")!;
    expect(doc).toBeInstanceOf(Document);
    expect(doc).toMatchObject({ pageContent: "text", metadata: { page: 2 }, id: "doc1" });
  });

  it("keeps an id set after the message was made (LangChain does not serialise it by itself)", () => {
    const message = new AIMessage("late id");
    message.id = "later";
    expect(roundTrip(message).id).toBe("later");
  });

  it("checkpoints a graph whose plain (non-messages) state holds messages", async () => {
    const State = Annotation.Root({ last: Annotation<AIMessage>() });
    const graph = new StateGraph(State)
      .addNode("reply", () => ({ last: new AIMessage({ content: "ok", id: "r1" }) }))
      .addEdge(START, "reply")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "plain" } };
    await graph.invoke({}, config);
    const { values } = await graph.getState(config);
    expect(values.last).toBeInstanceOf(AIMessage);
    expect(values.last.id).toBe("r1");
  });

  it("a stored LangChain class this process cannot find is a typed error that says how to register it", async () => {
    await loadLangChain();
    class Unknown extends Serializable {
      lc_namespace = ["acme", "things"];
      override lc_serializable = true;
      constructor(fields: { size: number }) {
        super(fields);
      }
    }
    const stored = defaultSerializer.dumps({ thing: new Unknown({ size: 3 }) }).toString();
    // As another process wrote it: a class id nothing in this process has seen.
    const foreign = stored.replaceAll('"Unknown"', '"Elsewhere"');
    const failure = (() => {
      try {
        defaultSerializer.loads(foreign);
      } catch (error) {
        return error;
      }
    })();
    expect(failure).toBeInstanceOf(SerializationError);
    expect((failure as SerializationError).code).toBe("SERIALIZATION");
    expect((failure as Error).message).toContain('registerSerializable("acme/things/Elsewhere", Class)');
    registerSerializable("acme/things/Elsewhere", Unknown);
    const back = defaultSerializer.loads(foreign) as { thing: Unknown };
    expect(back.thing).toBeInstanceOf(Unknown);
    expect(back.thing.lc_kwargs).toEqual({ size: 3 });
  });

  it("a class that is neither registered nor LangChain-serialisable still fails naming where it is", () => {
    class Socket {
      fd = 3;
    }
    expect(() => defaultSerializer.dumps({ messages: [new HumanMessage("x"), new Socket()] })).toThrow(
      /unregistered class Socket at value\.messages\[1\].*registerSerializable/,
    );
  });
});

describe("graphs without LangChain objects", () => {
  it("never import @langchain/core", () => {
    // A resolve hook that refuses @langchain/core: the plain graph runs, the messages graph cannot.
    const hook = `data:text/javascript,export async function resolve(s, c, next) { if (s.startsWith("@langchain/core")) throw new Error("LOADED " + s); return next(s, c); }`;
    const script = (state: string) => `
      import { register } from "node:module";
      register(${JSON.stringify(hook)});
      const { Annotation, MessagesAnnotation, MemorySaver, START, StateGraph } = await import("@interlude/core");
      const State = ${state};
      const graph = new StateGraph(State).addNode("node", () => ({})).addEdge(START, "node")
        .compile({ checkpointer: new MemorySaver() });
      try {
        await graph.invoke({}, { configurable: { thread_id: "t" } });
        console.log("ran");
      } catch (error) {
        console.log(error.code ?? error.message);
      }`;
    const run = (state: string) =>
      execFileSync(process.execPath, ["--input-type=module", "-e", script(state)], {
        encoding: "utf8",
        cwd: fileURLToPath(new URL(".", import.meta.url)),
      }).trim();
    expect(run(`Annotation.Root({ n: Annotation() })`)).toBe("ran");
    expect(run("MessagesAnnotation")).toBe("LANGCHAIN_MISSING");
  });
});
