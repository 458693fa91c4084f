import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InMemoryFilesystem } from "./memory/in-memory-filesystem.js";
import { compileGrepPattern } from "./grep-engine.js";
import type { GrepMatch } from "./protocol.js";

/** Python's str.splitlines(), spelled out: every line break it knows, "\r\n" as one. */
const BREAKS = new Set(["\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]);
function pythonLines(text: string): string[] {
  const lines: string[] = [];
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (!BREAKS.has(ch)) {
      current += ch;
      continue;
    }
    if (ch === "\r" && text[i + 1] === "\n") i++;
    lines.push(current);
    current = "";
  }
  if (current !== "") lines.push(current);
  return lines;
}

/** The specified semantics, written the slow and obvious way: every line on its own. */
function reference(files: Record<string, string>, source: string, flags: string): GrepMatch[] {
  const regex = new RegExp(source, flags);
  const out: GrepMatch[] = [];
  for (const path of Object.keys(files).sort()) {
    const text = files[path] as string;
    pythonLines(text).forEach((line, i) => {
      const match = regex.exec(line);
      if (match) out.push({ path, lineNumber: i + 1, lineContent: line, matchStart: match.index, matchEnd: match.index + match[0].length });
    });
  }
  return out;
}

const PATTERNS = ["a", "ab", "^a", "b$", "^$", "a\\s*b", "\\bab", "[^a]b", "a|^b", "(?=a)b", "(?<=a)b", "a(?!b)", ".", "a*", "\\r", "b\\n?a", "^\\s*$", "(a)\\1", "x?", "[\\s\\S]b"];

describe("grep engine", () => {
  it("matches the per-line reference on random texts and patterns (whole-text scan never drops a line)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom("f1.txt", "f2.txt", "d/f3.txt"), fc.array(fc.constantFrom("a", "b", " ", "\n", "\n", "\r", "x", "\u2028", "\x1c", "\v", "\x85"), { maxLength: 40 }).map((chars) => chars.join("")), { minKeys: 1 }),
        fc.constantFrom(...PATTERNS),
        fc.boolean(),
        async (files, pattern, ignoreCase) => {
          const fs = new InMemoryFilesystem();
          for (const [path, text] of Object.entries(files)) await fs.write(path, text);
          const compiled = compileGrepPattern(pattern, { ignoreCase, maxLength: 100 });
          const actual = await fs.grep(pattern, { ignoreCase, maxMatches: 10_000 });
          expect(actual.map((m) => ({ ...m }))).toEqual(reference(files, compiled.source, compiled.flags));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("stops at maxMatches across batches and files", async () => {
    const fs = new InMemoryFilesystem();
    for (let i = 0; i < 50; i++) await fs.write(`f${String(i).padStart(2, "0")}.txt`, "hit\nmiss\nhit\n");
    const matches = await fs.grep("hit", { maxMatches: 7 });
    expect(matches.map((m) => `${m.path}:${m.lineNumber}`)).toEqual(["f00.txt:1", "f00.txt:3", "f01.txt:1", "f01.txt:3", "f02.txt:1", "f02.txt:3", "f03.txt:1"]);
  });

  it("accepts inline flags and refuses what it cannot run", () => {
    expect(compileGrepPattern("(?i)abc", { maxLength: 100 })).toEqual({ source: "abc", flags: "i" });
    expect(compileGrepPattern("\\p{L}+", { maxLength: 100 }).flags).toBe("u");
    expect(() => compileGrepPattern("(?x) a b", { maxLength: 100 })).toThrow(/verbose/);
    expect(() => compileGrepPattern("a".repeat(101), { maxLength: 100 })).toThrow(/longer than 100/);
    expect(() => compileGrepPattern("(", { maxLength: 100 })).toThrow(/Invalid regex/);
  });
});
