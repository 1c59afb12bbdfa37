/** The benchmark graphs, written once against the shared API and built with either runtime. */

const concat = (a, b) => a.concat(b);

/** START -> n0 -> n1 -> ... -> n{length-1} -> END; each node adds one to a counter. */
export function chain(lib, length, checkpointer) {
  const State = lib.Annotation.Root({ count: lib.Annotation() });
  const builder = new lib.StateGraph(State);
  const bump = (s) => ({ count: s.count + 1 });
  for (let i = 0; i < length; i++) builder.addNode(`n${i}`, bump);
  builder.addEdge(lib.START, "n0");
  for (let i = 1; i < length; i++) builder.addEdge(`n${i - 1}`, `n${i}`);
  builder.addEdge(`n${length - 1}`, lib.END);
  return builder.compile({ checkpointer });
}

/**
 * The same chain in the low-level API: `length` actors, each subscribed to the channel the one
 * before writes, adding one (`new Pregel({ nodes, channels })`).
 */
export function pregelChain(lib, length, checkpointer) {
  const { Pregel, Channel, LastValue } = lib.low;
  const nodes = {};
  const channels = { c0: new LastValue() };
  for (let i = 0; i < length; i++) {
    nodes[`n${i}`] = Channel.subscribeTo(`c${i}`)
      .pipe((count) => count + 1)
      .pipe(Channel.writeTo([`c${i + 1}`]));
    channels[`c${i + 1}`] = new LastValue();
  }
  return new Pregel({ nodes, channels, inputChannels: "c0", outputChannels: `c${length}`, checkpointer });
}

/** The low-level loop: one actor that reads and writes one channel, adding one until `steps`. */
export function pregelLoop(lib, steps, checkpointer) {
  const { Pregel, Channel, LastValue } = lib.low;
  const tick = Channel.subscribeTo("count")
    .pipe((count) => count + 1)
    .pipe(Channel.writeTo([], { count: (count) => (count <= steps ? count : undefined) }));
  return new Pregel({
    nodes: { tick },
    channels: { count: new LastValue() },
    inputChannels: "count",
    outputChannels: "count",
    checkpointer,
  });
}

/** One node that routes back to itself until the counter reaches `steps`. */
export function loop(lib, steps, checkpointer) {
  const State = lib.Annotation.Root({ count: lib.Annotation() });
  return new lib.StateGraph(State)
    .addNode("tick", (s) => ({ count: s.count + 1 }))
    .addEdge(lib.START, "tick")
    .addConditionalEdges("tick", (s) => (s.count < steps ? "tick" : lib.END))
    .compile({ checkpointer });
}

/** propose -> review (asks a human) -> finalize. */
export function approval(lib, checkpointer) {
  const State = lib.Annotation.Root({
    request: lib.Annotation(),
    draft: lib.Annotation(),
    decision: lib.Annotation(),
    result: lib.Annotation(),
  });
  return new lib.StateGraph(State)
    .addNode("propose", (s) => ({ draft: `Refund of ${s.request.amount} EUR to ${s.request.customer}` }))
    .addNode("review", (s) => ({ decision: lib.interrupt({ question: "Approve?", draft: s.draft }) }))
    .addNode("finalize", (s) => ({ result: s.decision === "yes" ? "sent" : "dropped" }))
    .addEdge(lib.START, "propose")
    .addEdge("propose", "review")
    .addEdge("review", "finalize")
    .addEdge("finalize", lib.END)
    .compile({ checkpointer });
}

/**
 * START fans out `workers` Sends to one worker node; each appends its result to a list.
 * With `askEvery`, every `askEvery`-th worker asks a human first.
 */
export function fanout(lib, _workers, checkpointer, askEvery = 0) {
  const State = lib.Annotation.Root({
    items: lib.Annotation(),
    results: lib.Annotation({ reducer: concat, default: () => [] }),
  });
  return new lib.StateGraph(State)
    .addNode("worker", (arg) => {
      const answer = askEvery && arg.i % askEvery === 0 ? lib.interrupt({ item: arg.i }) : "auto";
      return { results: [{ i: arg.i, answer }] };
    })
    .addConditionalEdges(lib.START, (s) => s.items.map((i) => new lib.Send("worker", { i })))
    .addEdge("worker", lib.END)
    .compile({ checkpointer });
}

const MESSAGE_BYTES = 200;

/** One node that appends a 200-byte message per super-step until there are `steps` messages. */
export function chat(lib, steps, checkpointer, onStep) {
  const State = lib.Annotation.Root({ messages: lib.Annotation({ reducer: concat, default: () => [] }) });
  return new lib.StateGraph(State)
    .addNode("say", (s) => {
      onStep?.(s.messages.length);
      const n = s.messages.length;
      // {"role":"user","text":"..."} padded so that the serialised message is 200 bytes.
      const text = `message ${n} `.padEnd(MESSAGE_BYTES - 25, "x");
      return { messages: [{ role: "user", text }] };
    })
    .addEdge(lib.START, "say")
    .addConditionalEdges("say", (s) => (s.messages.length < steps ? "say" : lib.END))
    .compile({ checkpointer });
}

const WORDS = "the of and to in is you that it he was for on are as with his they at be this have from".split(" ");

/** ~`chars` characters of words picked by a seeded generator: text that compresses as prose does, not as padding. */
function prose(seed, chars) {
  let state = seed;
  let text = "";
  while (text.length < chars) {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    text += `${WORDS[state % WORDS.length]} `;
  }
  return text.slice(0, chars);
}

/**
 * A chat that waits for each message: every resume appends one 200-byte message of varied words
 * (a padded one would compress to nothing in PostgreSQL's TOAST and hide full copies). Resumed by
 * turns through two savers, it is a thread answered through two servers behind a balancer.
 */
export function askEachTurn(lib, checkpointer) {
  const State = lib.Annotation.Root({ messages: lib.Annotation({ reducer: concat, default: () => [] }) });
  return new lib.StateGraph(State)
    .addNode("ask", (s) => {
      const answer = lib.interrupt({ after: s.messages.length });
      return { messages: [{ role: "user", text: `${answer} ${prose(s.messages.length + 1, MESSAGE_BYTES - 40)}` }] };
    })
    .addEdge(lib.START, "ask")
    .addEdge("ask", "ask")
    .compile({ checkpointer });
}
