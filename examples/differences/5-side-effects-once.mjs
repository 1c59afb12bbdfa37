// A side effect in task() runs once across pause and resume; its error is saved too.
import assert from "node:assert/strict";
import { Command, entrypoint, interrupt, MemorySaver, task } from "@interlude/core";

let charges = 0;
const charge = task("charge_card", async (amount) => {
  charges++;
  return `charged ${amount} EUR (charge #${charges})`;
});
const checkout = entrypoint({ name: "checkout", checkpointer: new MemorySaver() }, async (amount) => {
  const receipt = await charge(amount);
  const shipped = interrupt({ receipt, question: "Ship the order?" });
  return { receipt, shipped };
});
const config = { configurable: { thread_id: "t" } };
await checkout.invoke(20, config);
const done = await checkout.invoke(new Command({ resume: true }), config);
assert.equal(charges, 1);
console.log(done);
