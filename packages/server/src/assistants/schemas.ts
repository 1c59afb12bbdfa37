/**
 * A graph's JSON Schemas as `assistants.getSchemas` returns them: input, output, state and context,
 * from the state's zod / StateSchema fields (Annotation fields carry no types: `{}`), and its
 * subgraphs by namespace as `assistants.getSubgraphs` lists them.
 */
import { type CompiledStateGraph, getJsonSchemaFromSchema, messagesStateReducer } from "@interlude/core";

type JsonSchema = Record<string, unknown>;

/** A list of messages as they cross the wire (wire/messages.ts). */
const MESSAGES: JsonSchema = {
  type: "array",
  items: {
    type: "object",
    properties: { type: { type: "string" }, content: {}, id: { type: "string" } },
    required: ["type", "content"],
  },
};

function fieldSchema(graph: CompiledStateGraph, key: string): JsonSchema {
  if (graph.spec.reducers.get(key) === messagesStateReducer) return MESSAGES;
  const validator = graph.builder.validators.get(key);
  return (validator && getJsonSchemaFromSchema(validator)) ?? {};
}

function objectOf(graph: CompiledStateGraph, keys: readonly string[]): JsonSchema {
  return { type: "object", properties: Object.fromEntries(keys.map((key) => [key, fieldSchema(graph, key)])) };
}

export function graphSchemas(graph: CompiledStateGraph, graphId: string) {
  const { builder, spec } = graph;
  const context = builder.contextSchema === undefined ? null : (getJsonSchemaFromSchema(builder.contextSchema) ?? {});
  return {
    graph_id: graphId,
    input_schema: objectOf(graph, builder.inputKeys ?? spec.stateKeys),
    // One output key (a one-channel state, a low-level graph's one output channel): its value is the output.
    output_schema:
      typeof builder.outputKeys === "string"
        ? fieldSchema(graph, builder.outputKeys)
        : objectOf(graph, builder.outputKeys ?? spec.stateKeys),
    state_schema: objectOf(graph, spec.stateKeys),
    config_schema: { type: "object" },
    context_schema: context,
  };
}

/** The graph's subgraphs by namespace (`node`, nested ones `node|inner` when `recurse`). */
export function subgraphSchemas(
  graph: CompiledStateGraph,
  graphId: string,
  options: { recurse: boolean; namespace?: string },
  prefix = "",
): Record<string, ReturnType<typeof graphSchemas>> {
  const out: Record<string, ReturnType<typeof graphSchemas>> = {};
  for (const [name, node] of graph.spec.nodes) {
    const sub = node.subgraph as CompiledStateGraph | undefined;
    if (!sub?.spec) continue;
    const ns = prefix + name;
    if (options.namespace === undefined || options.namespace === ns) out[ns] = graphSchemas(sub, graphId);
    if (options.recurse) Object.assign(out, subgraphSchemas(sub, graphId, options, `${ns}|`));
  }
  return out;
}
