/**
 * `Channel.subscribeTo` and `Channel.writeTo`, the two ends of a low-level node, as
 * LangGraph.js's `Channel`: `Channel.subscribeTo("a").pipe(fn).pipe(Channel.writeTo(["b"]))`.
 */
import { GraphValidationError } from "../errors/graph.js";
import { isRunnable } from "../graph/runnable.js";
import { ChannelWrite, type ChannelWriteEntry, PASSTHROUGH } from "./channel-write.js";
import { PregelNode } from "./node.js";

export interface SubscribeOptions {
  /** Read the one channel under this key: the node's input is `{ [key]: value }`. */
  key?: string;
  tags?: string[];
}

// biome-ignore lint/complexity/noStaticOnlyClass: LangGraph.js's API is these two statics on a class (`Channel.subscribeTo`, `Channel.writeTo`)
export class Channel {
  /**
   * A node triggered by `channels`. One channel is read as the input itself (or under `key`);
   * several are read as an object by channel name.
   */
  static subscribeTo(channels: string | string[], options: SubscribeOptions = {}): PregelNode {
    const { key, tags } = options;
    if (Array.isArray(channels) && key !== undefined)
      throw new GraphValidationError(
        `subscribeTo(${JSON.stringify(channels)}, { key }): a key names the one channel read; with several, the input is already an object by channel name.`,
      );
    const list = Array.isArray(channels) ? channels : [channels];
    const read =
      typeof channels === "string"
        ? key
          ? { [key]: channels }
          : [channels]
        : Object.fromEntries(channels.map((channel) => [channel, channel]));
    return new PregelNode({ channels: read, triggers: list, tags });
  }

  /**
   * A writer of what it receives to each of `channels`, and of `writes`: a function or Runnable
   * maps the received value (nothing is written when it gives undefined); anything else
   * is written as is.
   */
  static writeTo(channels: string[], writes: Record<string, unknown> = {}): ChannelWrite {
    const entries: ChannelWriteEntry[] = channels.map((channel) => ({ channel, value: PASSTHROUGH, skipNone: false }));
    for (const [channel, value] of Object.entries(writes)) {
      if (typeof value === "function" || isRunnable(value))
        entries.push({ channel, value: PASSTHROUGH, skipNone: true, mapper: value as ChannelWriteEntry["mapper"] });
      else entries.push({ channel, value, skipNone: false });
    }
    return new ChannelWrite(entries);
  }
}
