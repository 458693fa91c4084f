/**
 * Every backend globs like Python's `fnmatch` over the same tree: `glob()` (from the root and
 * from a base directory) and grep's `glob` filter give exactly the files python3 selects with
 * `fnmatch.fnmatchcase` on the paths relative to the base. Memory, host, and both Podman
 * variants (overlay and exec) run here for real.
 */
import fc from "fast-check";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostFilesystem } from "./host/host-filesystem.js";
import { InMemoryFilesystem } from "./memory/in-memory-filesystem.js";
import { comparePaths, isWithin, relativeTo } from "./paths.js";
import { podmanExecTarget, podmanSandboxTarget, releasePodmanTargets } from "./podman/podman.test-support.js";
import type { Filesystem } from "./protocol.js";
import { pythonFnmatch } from "./python-oracle.test-support.js";

/** Names every backend can hold (no backslash, control characters or "."/".." segments). */
const NAME_CHARS = ["a", "b", "c", "A", ".", "-", "_", " ", "[", "]", "!", "*", "?", "é", "\u4e2d"];
const segment = fc
  .array(fc.constantFrom(...NAME_CHARS), { minLength: 1, maxLength: 4 })
  .map((chars) => chars.join(""))
  .filter((name) => name !== "." && name !== "..");
/** Paths below a few shared top-level names (so base directories hold several files), or at the top. */
const pathArb = fc.tuple(fc.constantFrom("src", "a b", "[x]", ".hidden", "é*", ""), fc.array(segment, { minLength: 1, maxLength: 2 })).map(([top, rest]) => [...(top === "" ? [] : [top]), ...rest].join("/"));
const FILES = [...new Set(fc.sample(pathArb, { numRuns: 80, seed: 7 }))]
  // A file cannot also be a directory: keep the first of any pair that collides.
  .reduce<string[]>((kept, path) => (kept.some((other) => isWithin(path, other) || isWithin(other, path)) ? kept : [...kept, path]), [])
  .sort(comparePaths);
/** The top-level directory holding the most files. */
const BASE = FILES.filter((path) => path.includes("/"))
  .map((path) => path.split("/")[0] as string)
  .reduce<[string, number]>(
    (best, dir, _i, all) => {
      const count = all.filter((other) => other === dir).length;
      return count > best[1] ? [dir, count] : best;
    },
    ["", 0],
  )[0];
const PATTERN_TOKENS = ["a", "b", ".", "-", "/", "*", "**", "?", "[ab]", "[!a]", "[a-c]", "[]]", "[!]]", "[", "!", "é", " "];
const PATTERNS = [
  ...new Set([
  "*",
  "*.*",
  "**/*",
  "*/*",
  "?",
  "[!.]*",
  ...FILES.slice(0, 10).map((path) => path.replace(/[a-c]/g, "?")),
  ...fc.sample(fc.array(fc.constantFrom(...PATTERN_TOKENS), { minLength: 1, maxLength: 5 }).map((t) => t.join("")), { numRuns: 20, seed: 71 }),
  ]),
];

/** What python3 selects: files below `base`, their base-relative path matched by fnmatchcase. */
function expected(base: string): Map<string, string[]> {
  const below = FILES.filter((path) => base === "" || (path !== base && isWithin(path, base)));
  const cases = PATTERNS.flatMap((pattern) => below.map((path) => [relativeTo(path, base), pattern] as const));
  const answers = pythonFnmatch(cases);
  const result = new Map<string, string[]>(PATTERNS.map((pattern) => [pattern, []]));
  cases.forEach(([, pattern], i) => {
    if (answers[i] === true) result.get(pattern)?.push((below[i % below.length] as string));
  });
  return result;
}

const seed = async (fs: Filesystem): Promise<void> => {
  for (const path of FILES) await fs.write(path, `content of ${path}\n`);
};

interface Subject {
  readonly name: string;
  readonly fs: Filesystem;
  readonly cleanup: () => Promise<void>;
}

const subjects: Subject[] = [];
let hostDir: string;

beforeAll(async () => {
  const memory = new InMemoryFilesystem();
  await seed(memory);
  subjects.push({ name: "memory", fs: memory, cleanup: async () => {} });
  hostDir = await mkdtemp(join(tmpdir(), "wink-glob-"));
  const host = new HostFilesystem({ root: hostDir, durable: false });
  await seed(host);
  subjects.push({ name: "host", fs: host, cleanup: async () => {} });
  for (const target of [podmanExecTarget(async () => {}), podmanSandboxTarget(async () => {})]) {
    const { fs, cleanup } = await target.create();
    await seed(fs);
    subjects.push({ name: target.name, fs, cleanup });
  }
}, 240_000);

afterAll(async () => {
  for (const subject of subjects.splice(0)) await subject.cleanup();
  await releasePodmanTargets();
  if (hostDir !== undefined) await rm(hostDir, { recursive: true, force: true });
}, 120_000);

describe("glob on every backend matches python3's fnmatch", { timeout: 240_000 }, () => {
  it("uses a tree and patterns that select something and not everything", () => {
    expect(FILES.length).toBeGreaterThan(40);
    expect(FILES.filter((path) => isWithin(path, BASE) && path !== BASE).length).toBeGreaterThan(3);
    const fromRoot = expected("");
    const sizes = [...fromRoot.values()].map((files) => files.length);
    expect(sizes.filter((n) => n > 0 && n < FILES.length).length).toBeGreaterThan(10);
  });

  for (const [label, base] of [
    ["from the root", ""],
    ["from a base directory", null],
  ] as const) {
    it(`glob() and grep's glob filter, ${label}`, async () => {
      const dir = base ?? BASE;
      const want = expected(dir);
      for (const subject of subjects) {
        for (const pattern of PATTERNS) {
          const wanted = [...(want.get(pattern) ?? [])].sort(comparePaths);
          const options = dir === "" ? {} : { path: dir };
          const globbed = (await subject.fs.glob(pattern, options)).map((m) => m.path);
          expect(globbed, `${subject.name}: glob ${JSON.stringify(pattern)} in ${JSON.stringify(dir)}`).toEqual(wanted);
          const grepped = [...new Set((await subject.fs.grep("content", { ...options, glob: pattern })).map((m) => m.path))];
          expect(grepped, `${subject.name}: grep --glob ${JSON.stringify(pattern)} in ${JSON.stringify(dir)}`).toEqual(wanted);
        }
      }
    });
  }
});
