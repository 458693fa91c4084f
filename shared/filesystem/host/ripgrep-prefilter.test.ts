/**
 * The ripgrep prefilter must never change grep results: grep restricted to rg's candidates
 * (what the driver hook does) equals the plain shared JS grep, on a tree built to trip it up
 * (binary, invalid UTF-8, BOM, CRLF, hidden, ignored, links, case folding); and the required
 * literal of a regex is in every line the regex matches (property test over a regex grammar).
 */
import * as fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DriverFilesystem } from "../driver-backed/driver-filesystem.js";
import { compileGrepPattern } from "../grep-engine.js";
import { HostDriver } from "./host-driver.js";
import { HostFilesystem } from "./host-filesystem.js";
import { makeTempDir, restrictedTo, writeTree } from "./host.test-support.js";
import { literalOfPattern, prefilterLiteral, requiredLiteral } from "./ripgrep-prefilter.js";

let base: string;
let root: string;

beforeAll(async () => {
  base = await makeTempDir("wink-rg-prefilter-");
  root = path.join(base, "ws");
  await writeTree(root, {
    "a.txt": "hello world\nHELLO again\nnothing\n",
    "crlf.txt": "line one\r\nhello crlf\r\n",
    "bom.txt": "\ufeffhello with bom\n",
    ".hidden/h.txt": "hello hidden\n",
    "node_modules/m.js": "hello ignored-by-default\n",
    ".gitignore": "*.log\n",
    "x.log": "hello in an ignored file\n",
    "kelvin.txt": "\u212a is a kelvin sign; \u017f is a long s\n",
    "dir/deep/d.md": "foo.bar and foo-bar and fooXbar\n",
    "utf8/é.txt": "café hello\n",
    "src/a.ts": "const needle_42 = 1;\nit.test(x)\n",
    "src/b.ts": "needle_ without digits\nNEEDLE_7 upper\n",
    "src/c.ts": "\u212aelvin and cla\u017f\nabcdef\n",
    "src/d.ts": "cdef but no a\nxxyzw\nfoo.bar()\n",
  });
  fs.writeFileSync(path.join(root, "binary.bin"), Buffer.from([0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00, 0x01]));
  fs.writeFileSync(path.join(root, "invalid.txt"), Buffer.from([0x68, 0x65, 0x6c, 0x6c, 0x6f, 0xff, 0x0a]));
  fs.writeFileSync(path.join(root, "utf16.txt"), Buffer.from("\ufeffhello", "utf16le"));
  await writeTree(base, { "outside/o.txt": "hello from outside\n" });
  fs.symlinkSync(path.join(base, "outside"), path.join(root, "link-out"));
});

afterAll(async () => {
  await fs.promises.rm(base, { recursive: true, force: true });
});

describe("literalOfPattern", () => {
  it("accepts plain and escaped literals, refuses regexes and unsafe literals", () => {
    expect(literalOfPattern("hello", false)).toBe("hello");
    expect(literalOfPattern("foo\\.bar", false)).toBe("foo.bar");
    expect(literalOfPattern("a\\(b\\)", false)).toBe("a(b)");
    expect(literalOfPattern("café", false)).toBe("café");
    for (const regex of ["foo.bar", "a+", "^x", "(?i)x", "[ab]", "x|y", "\\d", "\\w+", "a{2}", ""]) expect(literalOfPattern(regex, false), regex).toBeNull();
    expect(literalOfPattern("café", true)).toBeNull();
    expect(literalOfPattern("tab\there", false)).toBeNull();
    expect(literalOfPattern("\ufeffx", false)).toBeNull();
  });
});

describe("grep through the ripgrep prefilter", () => {
  const queries: [string, boolean][] = [
    ["hello", false],
    ["hello", true],
    ["HELLO", false],
    ["k", true],
    ["s", true],
    ["foo\\.bar", false],
    ["foo-bar", false],
    ["café", false],
    ["crlf", false],
    ["outside", false],
    ["absent-literal", false],
    ["foo.bar", false],
    ["needle_\\d+", false],
    ["needle_\\d+", true],
    ["(?i)needle_\\d", false],
    ["\\.test\\(", false],
    ["a(bc)?def", false],
    ["ab?cdef", false],
    ["x{2}yzw", false],
    ["(?i)kel\\p{L}", false],
    ["CLAS", true],
    ["^hello\\s\\w+$", false],
    ["hel+o", false],
    ["foo|bar", false],
    ["caf\\S", false],
  ];
  /** The plain JS grep: the same driver without the grepCandidates hook. */
  const plainGrep = async (driver: HostDriver, pattern: string, options: { ignoreCase: boolean; path?: string }): Promise<unknown> => {
    const all = new Set<string>();
    for await (const entry of driver.walk("")) if (entry.kind === "file") all.add(entry.path);
    return new DriverFilesystem(restrictedTo(driver, all)).grep(pattern, options);
  };

  for (const [pattern, ignoreCase] of queries) {
    it(`gives identical results for ${JSON.stringify(pattern)}${ignoreCase ? " (ignoreCase)" : ""}`, async () => {
      const driver = new HostDriver({ root, stateDir: path.join(base, "state") });
      const expected = await plainGrep(driver, pattern, { ignoreCase });
      // HostFilesystem uses the hook: its results must not change.
      const host = new HostFilesystem({ root, stateDir: path.join(base, "state") });
      expect(await host.grep(pattern, { ignoreCase })).toEqual(expected);
      // What DriverFilesystem.grep asks the hook: the compiled source and its case rule.
      const compiled = compileGrepPattern(pattern, { ignoreCase, maxLength: 4096 });
      const query = { pattern: compiled.source, ignoreCase: compiled.flags.includes("i") };
      const candidates = await driver.grepCandidates("", query);
      if (prefilterLiteral(query.pattern, query.ignoreCase) === null) {
        expect(candidates).toBeNull();
        return;
      }
      expect(candidates).not.toBeNull();
      const accelerated = await new DriverFilesystem(restrictedTo(driver, candidates ?? new Set())).grep(pattern, { ignoreCase });
      expect(accelerated).toEqual(expected);
      for (const match of expected as { path: string }[]) expect(candidates?.has(match.path)).toBe(true);
      // Scoped searches agree too.
      const scoped = await plainGrep(driver, pattern, { ignoreCase, path: "src" });
      const scopedCandidates = await driver.grepCandidates("src", query);
      expect(await new DriverFilesystem(restrictedTo(driver, scopedCandidates ?? new Set())).grep(pattern, { ignoreCase, path: "src" })).toEqual(scoped);
    });
  }

  it("narrows regex searches to the files with the required literal", async () => {
    const driver = new HostDriver({ root, stateDir: path.join(base, "state") });
    expect(await driver.grepCandidates("", { pattern: "needle_\\d+", ignoreCase: false })).toEqual(new Set(["src/a.ts", "src/b.ts"]));
    expect(await driver.grepCandidates("", { pattern: "needle_\\d+", ignoreCase: true })).toEqual(new Set(["src/a.ts", "src/b.ts"]));
    expect(await driver.grepCandidates("", { pattern: "(?i)kel\\p{L}", ignoreCase: false })).toEqual(new Set(["kelvin.txt", "src/c.ts"]));
    expect(await driver.grepCandidates("", { pattern: "foo|bar", ignoreCase: false })).toBeNull();
  });

  it("never names files behind a symlinked directory as candidates", async () => {
    const driver = new HostDriver({ root, stateDir: path.join(base, "state") });
    const candidates = await driver.grepCandidates("", { pattern: "hello", ignoreCase: false });
    expect([...(candidates ?? [])].some((p) => p.startsWith("link-out/"))).toBe(false);
    expect(candidates?.has("x.log")).toBe(true);
    expect(candidates?.has(".hidden/h.txt")).toBe(true);
  });
});

describe("requiredLiteral", () => {
  it("extracts the longest run of required literal characters", () => {
    const cases: [string, string | null][] = [
      ["needle_\\d+", "needle_"],
      ["foo|bar", null],
      ["a(bc)?def", "def"],
      ["ab?cdef", "cdef"],
      ["x{2}yzw", "yzw"],
      ["\\.test\\(", ".test("],
      ["abc+", null],
      ["abcd+", "abc"],
      ["(foo|bar)bazz", "bazz"],
      ["[abc]defg[h]", "defg"],
      ["^import .* from", "import "],
      ["\\bclass\\s+\\w+", "class"],
      ["foo\\/bar\\-baz", "foo/bar-baz"],
      ["abcd\\k<a|xyz>", null],
      ["abc\\cJdef", "abc"],
      ["\\x41bcd", "bcd"],
      ["\\u0041bcd", "bcd"],
      ["(?<=abc)defg", "defg"],
      ["ab(?:cd)*efgh", "efgh"],
      ["x\\1yzab", "yzab"],
      ["a{b{2,3}cdef", "cdef"],
      ["ab😀cdef", "cdef"],
      ["ta\tbcd", "bcd"],
      ["\\(?i\\)", null],
      ["(?i)abc", null],
      ["ab", null],
      ["abc(", null],
      ["abc)", null],
    ];
    for (const [pattern, expected] of cases) expect(requiredLiteral(pattern, false), pattern).toBe(expected);
    expect(requiredLiteral("café\\d", true)).toBe("caf");
    expect(requiredLiteral("café\\d", false)).toBe("café");
    expect(requiredLiteral("xcafé_\\d", true)).toBe("xcaf");
  });

  it("resolves a leading inline-flag group and prefers the whole literal", () => {
    expect(prefilterLiteral("(?i)WINK_NEEDLE", false)).toEqual({ literal: "WINK_NEEDLE", ignoreCase: true });
    expect(prefilterLiteral("(?s)needle_.+", false)).toEqual({ literal: "needle_", ignoreCase: false });
    expect(prefilterLiteral("(?x)needle", false)).toBeNull();
    expect(prefilterLiteral("ab", false)).toEqual({ literal: "ab", ignoreCase: false });
    expect(prefilterLiteral("a.", false)).toBeNull();
  });
});

// A small regex grammar: literal characters (some case-folding traps, some unsafe), escapes of
// every kind, classes, groups (capturing, named, lookaround), alternation, quantifiers, anchors.
// Each piece comes with a sample text it (probably) matches, so that texts do hit the regex.
type Piece = readonly [pattern: string, sample: string];
const ATOMS: Piece[] = [
  ...[..."abcABkKs_-/ é\t", "\u212a", "\u017f", "😀", "]", "}", "{", "{,2}"].map((c): Piece => [c, c]),
  [".", "x"],
  ["^", ""],
  ["$", ""],
  ...[..."./\\()| _{"].map((c): Piece => [`\\${c}`, c]),
  ["\\-", "-"],
  ["\\d", "7"],
  ["\\w", "w"],
  ["\\s", " "],
  ["\\b", ""],
  ["\\B", ""],
  ["\\D", "D"],
  ["\\x61", "a"],
  ["\\u0061", "a"],
  ["\\cJ", ""],
  ["\\c1", "\\c1"],
  ["\\0", "\0"],
  ["\\1", ""],
  ["\\k<n>", ""],
  ["\\k<a|b>", "k<a"],
  ["\\a", "a"],
  ["\\p{L}", "L"],
  ["\\u{61}", "a"],
  ["[ab]", "b"],
  ["[^a]", "z"],
  ["[]", ""],
  ["[^]", "q"],
  ["[(]", "("],
  ["[\\]a]", "]"],
  ["[|]", "|"],
];
const LETTERS = [..."abcksABKS_"].map((c): Piece => [c, c]);
const QUANTIFIERS: [string, number][] = [...Array.from({ length: 12 }, (): [string, number] => ["", 1]), ["?", 1], ["?", 0], ["*", 2], ["+", 1], ["{2}", 2], ["{0,2}", 1], ["{1,}", 3], ["??", 1], ["+?", 1]];
const GROUP_OPENERS = ["(", "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?<n>"];
const grammar = fc.letrec<{ sequence: Piece; term: Piece; group: Piece }>((tie) => ({
  sequence: fc.array(tie("term"), { minLength: 1, maxLength: 12 }).map((terms): Piece => [terms.map((t) => t[0]).join(""), terms.map((t) => t[1]).join("")]),
  term: fc
    .tuple(fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...LETTERS) }, { weight: 6, arbitrary: fc.constantFrom(...ATOMS) }, { weight: 1, arbitrary: tie("group") }), fc.constantFrom(...QUANTIFIERS))
    .map(([[atom, sample], [q, times]]): Piece => [atom + q, sample.repeat(times)]),
  group: fc
    .tuple(fc.constantFrom(...GROUP_OPENERS), tie("sequence"), fc.option(tie("sequence"), { nil: undefined }), fc.boolean())
    .map(([open, first, second, pickSecond]): Piece => [
      `${open}${first[0]}${second === undefined ? "" : `|${second[0]}`})`,
      open.includes("=") || open.includes("!") ? "" : pickSecond && second !== undefined ? second[1] : first[1],
    ]),
}));
const patterns = fc
  .tuple(fc.constantFrom("", "", "(?i)", "(?s)"), grammar.sequence, fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: grammar.sequence }), fc.boolean())
  .map(([prefix, first, second, pickSecond]): Piece => [
    prefix + first[0] + (second === undefined ? "" : `|${second[0]}`),
    pickSecond && second !== undefined ? second[1] : first[1],
  ]);
const NOISE = [..."abcABkKs_-/.()|{} é\t\\1", "\u212a", "\u017f", "😀", "\n"];
/** Case variants a case-insensitive regex (or rg -i) may equate. */
const VARIANTS: Record<string, string[]> = { k: ["K", "\u212a"], s: ["S", "\u017f"], a: ["A"], b: ["B"], c: ["C"], K: ["k", "\u212a"], A: ["a"], B: ["b"] };

/** What rg -i does to an ASCII literal's neighbours: simple case folding. */
const fold = (text: string): string => text.replace(/[A-Z]/g, (c) => c.toLowerCase()).replace(/\u212a/g, "k").replace(/\u017f/g, "s");

describe("required literal property", () => {
  it("every line a regex matches contains its prefilter literal", () => {
    let exercised = 0;
    fc.assert(
      fc.property(
        patterns,
        fc.boolean(),
        fc.array(fc.constantFrom(...NOISE), { maxLength: 6 }),
        fc.array(fc.constantFrom(...NOISE), { maxLength: 6 }),
        fc.array(fc.nat()),
        ([pattern, sample], ignoreCase, before, after, swaps) => {
          let compiled: { source: string; flags: string };
          try {
            compiled = compileGrepPattern(pattern, { ignoreCase, maxLength: 4096 });
          } catch {
            return;
          }
          const caseless = compiled.flags.includes("i");
          const chars = [...sample];
          // Swap some characters for case variants (a case-sensitive regex then often fails).
          for (const swap of swaps) {
            const at = swap % Math.max(chars.length, 1);
            const variants = VARIANTS[chars[at] ?? ""];
            if (variants !== undefined) chars[at] = variants[swap % variants.length] as string;
          }
          const text = before.join("") + chars.join("") + after.join("");
          const regex = new RegExp(compiled.source, compiled.flags);
          // The driver hook gets the compiled source; prefilterLiteral also takes the raw pattern.
          for (const prefilter of [prefilterLiteral(compiled.source, caseless), prefilterLiteral(pattern, ignoreCase)]) {
            if (prefilter === null) continue;
            expect(prefilter.ignoreCase).toBe(caseless);
            for (const line of text.split("\n")) {
              if (!regex.test(line)) continue;
              exercised++;
              if (caseless) expect(fold(line), `${pattern} on ${JSON.stringify(line)}`).toContain(fold(prefilter.literal));
              else expect(line, `${pattern} on ${JSON.stringify(line)}`).toContain(prefilter.literal);
            }
          }
        },
      ),
      { numRuns: 4000 },
    );
    expect(exercised).toBeGreaterThan(250);
  });
});
