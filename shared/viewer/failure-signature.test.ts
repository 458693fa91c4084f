import { describe, expect, it } from "vitest";
import { MAX_TEMPLATE_CHARS, callSignature, messageTemplate, runErrorSignature } from "./failure-signature.js";
import { REAL_MESSAGES } from "./failure-messages.test-support.js";


describe("failure signatures", () => {
  it.each(REAL_MESSAGES)("templates the real message of %s's %s", (_source, _tool, message, template) => {
    expect(messageTemplate(message)).toBe(template);
  });

  it("puts the same error with other paths, numbers and ids in one group, and different errors in different groups", () => {
    const signatures = (tool: string, ...messages: string[]) => new Set(messages.map((message) => callSignature(tool, message)));
    // The fixtures' own pairs: 02 and 03 fail on other files, 02 and 03 refuse other overwrites.
    expect(signatures("read_file", "File not found: calc-service/src/calc/parsers.py", "File not found: payments-service/CHANGELOG.md", "File not found: /abs/x.txt", "File not found: README")).toEqual(new Set(["read_file: File not found: <path>", "read_file: File not found: README"]));
    expect(signatures("write_file", "File 'calc-service/src/calc/parser.py' must be read before overwriting.", "File 'payments-service/docs/adr/0001-decision.md' must be read before overwriting.", 'File "Makefile" must be read before overwriting.').size).toBe(1);
    expect(signatures("codex:command", "exit code 1: 1 failed, 5 passed in 0.08s", "exit code 2: 12 failed, 1,024 passed in 31.7s").size).toBe(1);
    // Same message, different tools; same tool, different errors.
    expect(callSignature("read_file", "File not found: a.py")).not.toBe(callSignature("write_file", "File not found: a.py"));
    const different = [
      "File not found: calc-service/src/calc/parsers.py",
      "File 'calc-service/src/calc/parser.py' must be read before overwriting.",
      "Error: refusing to write outside the workspace: ../../etc/hosts",
      "Validation error: target: expected str",
      "Tool validation failed: File does not exist in the virtual filesystem.",
    ];
    expect(signatures("read_file", ...different).size).toBe(different.length);
  });

  it("replaces each kind of varying part by its placeholder", () => {
    const cases: readonly (readonly [string, string])[] = [
      ["quoted 'single', \"double\", `back`, ‘curly’ and “curly”", "quoted <str>, <str>, <str>, <str> and <str>"],
      ["it doesn't, it isn't and it won't", "it doesn't, it isn't and it won't"],
      ["fetch https://api.example/v1/items?id=7 failed.", "fetch <url> failed."],
      ["at 2026-11-26T05:45:33.823562+00:00, on 2026-11-26 and 05:45:33", "at <time>, on <time> and <time>"],
      ["session 0f5f356f-9bfe-4e60-8222-b6a717dc8521 gone", "session <id> gone"],
      ["calls call_dedd83116ecc80e6, toolu_01A09q90qw90, cmd_0002 and fc_12ab", "calls <id>, <id>, <id> and <id>"],
      ["commit 3f9c2d1e8b7a and digest 9e107d9d372bb6826bd81d3542a419d6", "commit <id> and digest <id>"],
      ["token AbCdEfGh1234XyZ expired", "token <id> expired"],
      ["words stay: run_tests, snake_case, deadbeef, x86_64, v2", "words stay: run_tests, snake_case, deadbeef, x86_64, v2"],
      ["numbered names: worker-7, shard-12 and utf-8", "numbered names: worker-<n>, shard-<n> and utf-<n>"],
      ["paths /etc/hosts, ./a, ../b/c, ~/d, src/x.py:12:3, C:\\Users\\me\\a.txt", "paths <path>, <path>, <path>, <path>, <path>, <path>"],
      ["file names README.md, parser.py:7 and e.g. i.e. stay words", "file names <path>, <path> and e.g. i.e. stay words"],
      ["in docs/données/résumé.txt and docs/日本語/メモ.md", "in <path> and <path>"],
      ["numbers 7, -3, 0.08s, 1,024, 3/10 and 0xff", "numbers <n>, -<n>, <n>s, <n>, <n>/<n> and <n>"],
      ["  several\n\tlines   of  space  ", "several lines of space"],
    ];
    for (const [message, template] of cases) expect(messageTemplate(message), message).toBe(template);
  });

  it("replaces the call's own id wherever the message names it", () => {
    expect(messageTemplate("call abc-1 timed out (abc-1)", "abc-1")).toBe("call <id> timed out (<id>)");
    expect(messageTemplate("call abc-1 timed out")).toBe("call abc-<n> timed out");
  });

  it("keeps the start of a long message, cut where no surrogate pair is split", () => {
    const long = `Traceback: ${"word ".repeat(200)}`;
    const template = messageTemplate(long);
    expect(template).toHaveLength(MAX_TEMPLATE_CHARS);
    expect(template.endsWith("…")).toBe(true);
    const emoji = messageTemplate(`${"x".repeat(MAX_TEMPLATE_CHARS - 2)}😀 and more`);
    expect(emoji).toBe(`${"x".repeat(MAX_TEMPLATE_CHARS - 2)}…`);
    // Only the start is read: two messages that differ past it are one group.
    expect(messageTemplate(`${"a ".repeat(1500)}tail one`)).toBe(messageTemplate(`${"a ".repeat(1500)}tail two`));
  });

  it("names a run error by its type", () => {
    expect(runErrorSignature("PromptEvaluationError", "Turn failed: contextWindowExceeded — Your input exceeds the context window of this model. Please adjust your input and try again.")).toBe(
      "run error PromptEvaluationError: Turn failed: contextWindowExceeded — Your input exceeds the context window of this model. Please adjust your input and try again.",
    );
    expect(runErrorSignature(null, "Deadline exceeded after 30 s")).toBe("run error: Deadline exceeded after <n> s");
    expect(runErrorSignature("", "x")).toBe("run error: x");
  });

  it("is a function of the text alone", () => {
    for (const [, tool, message] of REAL_MESSAGES) expect(callSignature(tool, message)).toBe(callSignature(tool, `${message}`));
    // Runs of a rule's characters take time linear in their length (no backtracking blow-up).
    const started = performance.now();
    for (const text of ["a.".repeat(1000), "/a".repeat(1000), "'".repeat(2000), "1,".repeat(1000), "a-".repeat(1000)]) messageTemplate(text);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
