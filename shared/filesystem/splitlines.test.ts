/**
 * Line counting is Python's `str.splitlines()`, as WINK counts lines: checked against real
 * python3 on generated strings holding every line break it knows, for `splitLines`, for
 * `read()` windows and for grep's line numbers and line contents (memory and host backends;
 * the conformance suite states the same rules for every backend).
 */
import fc from "fast-check";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HostFilesystem } from "./host/host-filesystem.js";
import { InMemoryFilesystem } from "./memory/in-memory-filesystem.js";
import { READ_ENTIRE_FILE, type Filesystem } from "./protocol.js";
import { pythonAnswers } from "./python-oracle.test-support.js";
import { lineStarts, splitLines } from "./text.js";

const PIECES = ["x", "ab", " ", "é", "\u{1f600}", "\n", "\r", "\r\n", "\n\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\t", "\x1f", "\u0085x"];
const TEXTS = [
  "",
  "a\rb\u2028c\n",
  ...fc.sample(fc.array(fc.constantFrom(...PIECES), { maxLength: 14 }).map((pieces) => pieces.join("")), { numRuns: 400, seed: 2028 }),
];

/** python3's `s.splitlines(keepends)` for each text. */
function pythonSplitlines(keepEnds: boolean): string[][] {
  return pythonAnswers<string[]>(TEXTS, `answers = [s.splitlines(${keepEnds ? "True" : "False"}) for s in cases]`);
}

const base = await mkdtemp(join(tmpdir(), "wink-splitlines-"));
afterAll(() => rm(base, { recursive: true, force: true }));

describe("line counting is Python's str.splitlines", () => {
  it("counts WINK's example as 3 lines", () => {
    expect(splitLines("a\rb\u2028c\n")).toEqual(["a", "b", "c"]);
    expect(lineStarts("a\r\nb")).toEqual([0, 3]);
  });

  it("splitLines agrees with python3 with and without line ends", () => {
    const kept = pythonSplitlines(true);
    const bare = pythonSplitlines(false);
    TEXTS.forEach((text, i) => {
      expect(splitLines(text, true), JSON.stringify(text)).toEqual(kept[i]);
      expect(splitLines(text), JSON.stringify(text)).toEqual(bare[i]);
    });
  });

  for (const [name, make] of [
    ["memory", async (): Promise<Filesystem> => new InMemoryFilesystem()],
    ["host", async (): Promise<Filesystem> => new HostFilesystem({ root: await mkdtemp(join(base, "ws-")), durable: false })],
  ] as const) {
    it(`read() and grep on ${name} count and cut lines like python3`, async () => {
      const fs = await make();
      const kept = pythonSplitlines(true);
      const grepped = pythonAnswers<[number, string][]>(TEXTS, `import re\nanswers = [[[i, l] for i, l in enumerate(s.splitlines(), 1) if re.search("x|b| ", l)] for s in cases]`);
      for (const [i, text] of TEXTS.entries()) await fs.write(`t/${String(i).padStart(4, "0")}.txt`, text);
      for (const [i, text] of TEXTS.entries()) {
        const path = `t/${String(i).padStart(4, "0")}.txt`;
        const lines = kept[i] as string[];
        const whole = await fs.read(path, { limit: READ_ENTIRE_FILE });
        expect(whole.totalLines, JSON.stringify(text)).toBe(lines.length);
        expect(whole.content).toBe(text);
        for (let k = 0; k < lines.length; k++) expect((await fs.read(path, { offset: k, limit: 1 })).content, `${JSON.stringify(text)} line ${k}`).toEqual(lines[k]);
      }
      const matches = await fs.grep("x|b| ", { path: "t", maxMatches: 100_000 });
      TEXTS.forEach((text, i) => {
        const path = `t/${String(i).padStart(4, "0")}.txt`;
        const ours = matches.filter((m) => m.path === path).map((m) => [m.lineNumber, m.lineContent]);
        expect(ours, JSON.stringify(text)).toEqual(grepped[i]);
      });
    });
  }
});
