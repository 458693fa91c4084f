/**
 * Glob matching is Python's `fnmatch` (what WINK's `glob` and grep's file filter use):
 * the spec's own examples, then a differential test against real python3 on generated
 * paths and patterns, set syntax and its corner cases included.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileFnmatch, fnmatchCase, fnmatchLiteralDirectory } from "./fnmatch.js";
import { globMatcher } from "./glob.js";
import { pythonFnmatch } from "./python-oracle.test-support.js";

/** Characters that mean something to fnmatch, to a regex, or to neither. */
const NAME_CHARS = ["a", "b", "c", "z", "A", ".", "-", "_", " ", "[", "]", "!", "^", "\\", "*", "?", "&", "~", "|", "é", "Ω", "\u4e2d", "\u{1f600}"];
const PATTERN_TOKENS = [
  ...NAME_CHARS,
  "/",
  "*",
  "**",
  "?",
  "[abc]",
  "[a-c]",
  "[!a]",
  "[!a-c]",
  "[]a]",
  "[!]b]",
  "[z-a]",
  "[a-]",
  "[-a]",
  "[^a]",
  "[\\]",
  "[a-b-c]",
  "[b-a-c]",
  "[a--]",
  "[!--]",
  "[--a]",
  "[&~|]",
  "[[]",
  "[é-\u4e2d]",
  "[\u{1f600}]",
  "[!",
  "[",
];

const segment = fc.array(fc.constantFrom(...NAME_CHARS), { minLength: 1, maxLength: 5 }).map((chars) => chars.join(""));
const pathArb = fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => segments.join("/"));
const patternArb = fc.array(fc.constantFrom(...PATTERN_TOKENS), { minLength: 1, maxLength: 8 }).map((tokens) => tokens.join(""));
/** Patterns made from a path, so that many cases match. */
const derivedArb = fc.tuple(pathArb, fc.array(fc.tuple(fc.nat(), fc.constantFrom("*", "?", "[!x]", "[a-z]", "**")), { maxLength: 3 })).map(([path, edits]) => {
  const chars = Array.from(path);
  for (const [at, replacement] of edits) chars[at % chars.length] = replacement;
  return [path, chars.join("")] as const;
});

function ours(name: string, pattern: string): boolean | "error" {
  try {
    return fnmatchCase(name, pattern);
  } catch {
    return "error";
  }
}

describe("fnmatch (WINK's glob semantics)", () => {
  it("matches as the spec's examples say: * crosses '/', **/ needs a directory", () => {
    expect(fnmatchCase("a.py", "*.py")).toBe(true);
    expect(fnmatchCase("src/deep/a.py", "*.py")).toBe(true);
    expect(fnmatchCase("a.py", "**/*.py")).toBe(false);
    expect(fnmatchCase("src/a.py", "**/*.py")).toBe(true);
    expect(fnmatchCase(".env", "*")).toBe(true);
    expect(fnmatchCase("a/b", "a?b")).toBe(true);
    expect(fnmatchCase("A.PY", "*.py")).toBe(false);
    expect(fnmatchCase("x{a,b}", "x{a,b}")).toBe(true);
    expect(fnmatchCase("xa", "x{a,b}")).toBe(false);
    expect(fnmatchCase("a\\b", "a\\b")).toBe(true);
  });

  it("reads sets as CPython does: leading ']', '!', reversed ranges, unclosed '['", () => {
    expect(fnmatchCase("]", "[]]")).toBe(true);
    expect(fnmatchCase("a", "[!]a]")).toBe(false);
    expect(fnmatchCase("b", "[!]a]")).toBe(true);
    expect(fnmatchCase("m", "[z-a]")).toBe(false);
    expect(fnmatchCase("-", "[a-]")).toBe(true);
    expect(fnmatchCase("^", "[^a]")).toBe(true);
    expect(fnmatchCase("b", "[^a]")).toBe(false);
    expect(fnmatchCase("[a", "[a")).toBe(true);
    expect(fnmatchCase("/", "[!a]")).toBe(true);
  });

  it("agrees with python3's fnmatch.fnmatchcase on generated paths and patterns", () => {
    const random = fc.sample(fc.tuple(pathArb, patternArb), { numRuns: 4000, seed: 18 });
    const derived = fc.sample(derivedArb, { numRuns: 2000, seed: 1818 });
    const cases: (readonly [string, string])[] = [...random, ...derived];
    const expected = pythonFnmatch(cases);
    const mismatches = cases.map((c, i) => ({ name: c[0], pattern: c[1], python: expected[i], ours: ours(c[0], c[1]) })).filter((c) => c.python !== c.ours);
    expect(mismatches.slice(0, 10)).toEqual([]);
    // The sample is not trivial: both answers occur often.
    expect(expected.filter((answer) => answer === true).length).toBeGreaterThan(500);
    expect(expected.filter((answer) => answer === false).length).toBeGreaterThan(500);
  });

  it("matches long names against many stars without backtracking blow-up", () => {
    const name = `${"a".repeat(5_000)}c`;
    expect(compileFnmatch("*a*a*a*a*a*a*a*a*b").test(name)).toBe(false);
    expect(compileFnmatch("*a*a*a*a*a*a*a*a*c").test(name)).toBe(true);
  });

  it("names the directory every match lies in, or none for impossible literal paths", () => {
    expect(fnmatchLiteralDirectory("src/lib/*.ts")).toBe("src/lib");
    expect(fnmatchLiteralDirectory("src/a?/b")).toBe("src");
    expect(fnmatchLiteralDirectory("*.py")).toBe("");
    expect(fnmatchLiteralDirectory("a.py")).toBe("");
    expect(fnmatchLiteralDirectory("./*.py")).toBeNull();
    expect(fnmatchLiteralDirectory("a//b/*")).toBeNull();
    expect(fnmatchLiteralDirectory("../*")).toBeNull();
  });
});

describe("globMatcher", () => {
  it("defaults to fnmatch and keeps the path-aware syntax as an explicit option", () => {
    expect(globMatcher("*.py").test("src/a.py")).toBe(true);
    expect(globMatcher("*.py", { syntax: "path" }).test("src/a.py")).toBe(false);
    expect(globMatcher("**/*.py", { syntax: "path" }).test("a.py")).toBe(true);
    expect(globMatcher("**/*.py").test("a.py")).toBe(false);
    expect(globMatcher("src/**", { syntax: "path" }).literalDirectory).toBe("src");
  });

  it("refuses empty, overlong and unknown-syntax patterns with EINVAL", () => {
    expect(() => globMatcher("")).toThrow(expect.objectContaining({ code: "EINVAL" }));
    expect(() => globMatcher("x".repeat(1_025))).toThrow(/longer than 1024/);
    expect(() => globMatcher("*", { syntax: "regex" as never })).toThrow(/Unknown glob syntax "regex"/);
    expect(() => globMatcher("{a,b", { syntax: "path" })).toThrow(/Unbalanced braces/);
    expect(globMatcher("{a,b").test("{a,b")).toBe(true);
  });
});
