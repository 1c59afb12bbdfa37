/**
 * What `stream()` yields, by stream mode (`StreamOutputMap`, LangGraph.js's name): types only,
 * apart from the compiled graph and LangGraph.js's other type helpers, which both use them.
 */
import type { ToolEvent } from "../callbacks/tool-event.js";
import type { CheckpointMetadata, RunnableConfig } from "../checkpoint/types.js";
import type { Interrupt } from "../interrupt/record.js";
import type { BaseMessage } from "../messages/types.js";
import type { StreamMode } from "../run/emitter.js";
import type { PregelTaskDescription } from "../thread/snapshot.js";

/** A chunk of each stream mode, as Interlude's runs tell them (run/events.ts, run/run-state.ts). */
type ModeChunks<Values, Updates, Nodes, NodeReturn, Custom> = {
  values: Values;
  updates: NodeReturn extends Record<string, unknown>
    ? { [K in keyof NodeReturn]?: NodeReturn[K] }
    : Record<Nodes extends string ? Nodes : string, Updates>;
  messages: [BaseMessage, Record<string, any>];
  custom: Custom;
  checkpoints: {
    values: Values;
    next: string[];
    config: RunnableConfig;
    metadata?: CheckpointMetadata;
    parentConfig?: RunnableConfig;
    tasks: PregelTaskDescription[];
  };
  tasks:
    | {
        id: string;
        name: Nodes;
        input: Values;
        triggers: string[];
        interrupts: Interrupt[];
        metadata: Record<string, any>;
      }
    | { id: string; name: Nodes; result: Record<string, unknown>; interrupts: Interrupt[]; error: unknown };
  tools: ToolEvent;
  debug: Record<string, any>;
};

/** A mode's chunk in a list of modes (see StreamOutputMap). */
type ListedChunk<Chunks extends Record<StreamMode, unknown>, Mode extends StreamMode> = Mode extends "messages"
  ? [BaseMessage, any]
  : Chunks[Mode];

/** The modes of a `streamMode` given as a list (none when it is one mode or absent). */
type ListedModes<M> = undefined extends M
  ? never
  : StreamMode | StreamMode[] extends M
    ? M extends StreamMode[]
      ? M[number]
      : M
    : M extends StreamMode[]
      ? M[number]
      : never;

/**
 * What `stream()` yields for a `streamMode`, `subgraphs` and `encoding`: the chunk, `[mode,
 * chunk]` for a list of modes, with the namespace first for subgraphs; bytes for server-sent events.
 * In a list of modes a `messages` chunk's metadata is `any` (LangGraph.js: `Record<string, any>`):
 * code written when Interlude's chunks were untyped casts it to the keys it reads.
 */
export type StreamOutputMap<
  TStreamMode extends StreamMode | StreamMode[] | undefined,
  TStreamSubgraphs extends boolean,
  StreamUpdates,
  StreamValues,
  Nodes,
  NodeReturnType,
  StreamCustom,
  TEncoding extends "text/event-stream" | undefined,
> = [TEncoding] extends ["text/event-stream"]
  ? Uint8Array
  : ModeChunks<StreamValues, StreamUpdates, Nodes, NodeReturnType, StreamCustom> extends infer Chunks extends Record<
        StreamMode,
        unknown
      >
    ? [ListedModes<TStreamMode>] extends [never]
      ? (undefined extends TStreamMode ? "updates" : TStreamMode) extends infer Mode extends StreamMode
        ? [TStreamSubgraphs] extends [true]
          ? [string[], Chunks[Mode]]
          : Chunks[Mode]
        : never
      : ListedModes<TStreamMode> extends infer Listed extends StreamMode
        ? {
            [Mode in StreamMode]: [TStreamSubgraphs] extends [true]
              ? [string[], Mode, ListedChunk<Chunks, Mode>]
              : [Mode, ListedChunk<Chunks, Mode>];
          }[Listed]
        : never
    : never;
