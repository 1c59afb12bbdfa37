/** Every runnable example in the README's guide runs, asserts its own outcome, and exits 0. */
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const expected: Record<string, RegExp> = {
  "patterns/validate-input.mjs": /Human is 25 years old\.\n\{ age: 25 \}/,
  "patterns/resume-many.mjs": /finance: false', 'legal: true/,
  "patterns/subgraph.mjs": /Got an answer of 35\n\{ parent_node: \{ state_counter: 1 \} \}/,
  "patterns/breakpoints-and-edits.mjs":
    /publish v2 \(edited by a human\)[\s\S]*fork: \[ 'write', 'publish v3 \(fork\)' \]/,
  "patterns/side-effects.mjs": /api_call ran 1 time/,
  "differences/1-ambiguous-answer.mjs": /AMBIGUOUS_RESUME[\s\S]*'newsletter: yes', 'transfer: no'/,
  "differences/2-nothing-to-resume.mjs": /NOTHING_TO_RESUME[\s\S]*UNKNOWN_INTERRUPT/,
  "differences/3-answer-bound-to-question.mjs": /INTERRUPT_MISMATCH[\s\S]*name: 'John', age: '25'/,
  "differences/4-swallowed-interrupt.mjs": /still paused/,
  "differences/5-side-effects-once.mjs": /charge #1/,
  "differences/6-validated-answers.mjs": /INVALID_RESUME[\s\S]*approved: true/,
  "differences/7-one-writer.mjs": /THREAD_BUSY[\s\S]*payments made: 1/,
  "differences/8-who-answered.mjs": /alice@example\.com/,
  "differences/9-cache-never-skips-a-question.mjs": /second thread asks again: Approve \$1M to ACME\?/,
  "agents/tool-review.mjs":
    /\[approve\] emails sent: 1 \(to bob@example\.com\)[\s\S]*\[edit\] emails sent: 1 \(to carol@example\.com\)[\s\S]*\[reject\] answer: Not sent: Do not email Bob today\.\n\[reject\] emails sent: 0/,
};

describe("examples", () => {
  const root = fileURLToPath(new URL(".", import.meta.url));
  const files = ["patterns", "differences", "agents"].flatMap((dir) =>
    readdirSync(`${root}${dir}`)
      .filter((f) => f.endsWith(".mjs"))
      .map((f) => `${dir}/${f}`),
  );
  it("lists an expectation for every example", () => {
    expect(files.sort()).toEqual(Object.keys(expected).sort());
  });
  for (const file of files) {
    it(file, () => {
      // Offline: the agent example would call a real model when a provider's key is set.
      const env = { ...process.env, OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" };
      const output = execFileSync(process.execPath, [`${root}${file}`], { encoding: "utf8", env });
      expect(output).toMatch(expected[file]!);
    });
  }
});
