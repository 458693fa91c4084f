/**
 * The Filesystem conformance suite: one contract, written once, that every backend passes.
 *
 *   describeFilesystemConformance({ name: "memory", create: async () => ({ fs: new InMemoryFilesystem() }) });
 *
 * It covers the original's checklist (conformance.md 3.1–3.12, 3.15), mount points, archives
 * and hostile paths. A backend that lacks a capability says so in `capabilities`, at the call
 * site; nothing is skipped silently. Exported as `wink-debug/conformance` so authors of new
 * backends can run it against theirs (it needs vitest).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ErrorCode } from "../../errors.js";
import type { Filesystem } from "../protocol.js";
import { READ_ENTIRE_FILE } from "../protocol.js";
import { writeArchive } from "../../archive/index.js";
import { withWriter } from "../streams.js";
import { describeHostilePaths } from "./hostile-paths.js";
import { describeSnapshotConformance } from "./snapshots.js";
import type { ConformanceCreateOptions, ConformanceInstance, ConformanceOptions } from "./types.js";

export type { ConformanceCapabilities, ConformanceCreateOptions, ConformanceInstance, ConformanceOptions } from "./types.js";

/** Assert that `promise` rejects with a WinkError of `code` whose message matches `message`. */
export async function expectCode(promise: Promise<unknown>, code: ErrorCode, message?: RegExp): Promise<void> {
  let caught: unknown = undefined;
  let threw = false;
  try {
    await promise;
  } catch (error) {
    threw = true;
    caught = error;
  }
  expect(threw, `expected ${code}, but the call succeeded`).toBe(true);
  expect(caught).toBeInstanceOf(Error);
  expect((caught as { code?: unknown }).code, String(caught)).toBe(code);
  if (message) expect((caught as Error).message).toMatch(message);
}

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);
const dec = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

export function describeFilesystemConformance(options: ConformanceOptions): void {
  const timeout = options.timeoutMs ?? 30_000;
  const caps = options.capabilities ?? {};

  describe(`Filesystem conformance: ${options.name}`, { timeout }, () => {
    const instances: ConformanceInstance[] = [];
    let fs: Filesystem;

    async function make(createOptions?: ConformanceCreateOptions): Promise<Filesystem> {
      const instance = await options.create(createOptions);
      instances.push(instance);
      return instance.fs;
    }

    beforeEach(async () => {
      fs = await make();
    });

    afterEach(async () => {
      for (const instance of instances.splice(0)) await instance.cleanup?.();
    });

    describe("3.1 properties", () => {
      it("has a root, is writable by default, and reports read-only instances", async () => {
        expect(typeof fs.root).toBe("string");
        if (options.expectedRoot !== undefined) {
          const expected = typeof options.expectedRoot === "function" ? options.expectedRoot(fs) : options.expectedRoot;
          expect(fs.root).toBe(expected);
        }
        expect(fs.readOnly).toBe(false);
        expect(fs.mountPoint).toBeNull();
        const ro = await make({ readOnly: true });
        expect(ro.readOnly).toBe(true);
      });
    });

    describe("3.2 exists", () => {
      it("answers for files, directories and the root", async () => {
        expect(await fs.exists("missing.txt")).toBe(false);
        await fs.write("file.txt", "x");
        expect(await fs.exists("file.txt")).toBe(true);
        await fs.mkdir("dir");
        expect(await fs.exists("dir")).toBe(true);
        expect(await fs.exists(".")).toBe(true);
        expect(await fs.exists("")).toBe(true);
        expect(await fs.exists("/")).toBe(true);
      });

      it("is false (not an error) for paths escaping the root or malformed paths", async () => {
        expect(await fs.exists("../etc/passwd")).toBe(false);
        expect(await fs.exists("a/../../x")).toBe(false);
        expect(await fs.exists("x\u0000y")).toBe(false);
      });
    });

    describe("3.3 read", () => {
      it("returns content and the normalised path", async () => {
        await fs.write("file.txt", "hello\nworld\n");
        const result = await fs.read("file.txt");
        expect(result.content).toBe("hello\nworld\n");
        expect(result.path).toBe("file.txt");
        expect(result.totalLines).toBe(2);
        expect(result.truncated).toBe(false);
        expect(String(result)).toContain("file.txt");
      });

      it("paginates by lines", async () => {
        const lines = Array.from({ length: 100 }, (_, i) => `line ${i}\n`);
        await fs.write("many.txt", lines.join(""));
        const skip = await fs.read("many.txt", { offset: 1, limit: 2 });
        expect(skip.content).toBe("line 1\nline 2\n");
        expect(skip.offset).toBe(1);
        const five = await fs.read("many.txt", { limit: 5 });
        expect(five.limit).toBe(5);
        expect(five.truncated).toBe(true);
        expect(five.totalLines).toBe(100);
        const past = await fs.read("many.txt", { offset: 500 });
        expect(past.content).toBe("");
        expect(past.limit).toBe(0);
        expect(past.truncated).toBe(false);
      });

      it("reads whole files with READ_ENTIRE_FILE and defaults to 2,000 lines", async () => {
        const lines = Array.from({ length: 2500 }, (_, i) => `row ${i}`);
        await fs.writeBytes("big.txt", enc(lines.join("\n")));
        const all = await fs.read("big.txt", { limit: READ_ENTIRE_FILE });
        expect(all.totalLines).toBe(2500);
        expect(all.truncated).toBe(false);
        expect(all.content.startsWith("row 0\n")).toBe(true);
        expect(all.content.endsWith("row 2499")).toBe(true);
        const byDefault = await fs.read("big.txt");
        expect(byDefault.limit).toBe(2000);
        expect(byDefault.truncated).toBe(true);
      });

      it("keeps CRLF and a final line without newline", async () => {
        await fs.write("crlf.txt", "a\r\nb\r\nc");
        const result = await fs.read("crlf.txt", { offset: 1 });
        expect(result.content).toBe("b\r\nc");
        expect(result.totalLines).toBe(3);
      });

      it("counts lines as Python's str.splitlines, as WINK: \\r, \\v, \\f, \\x1c-\\x1e, \\x85, \\u2028 and \\u2029 end lines too", async () => {
        await fs.write("breaks.txt", "a\rb\u2028c\n");
        const whole = await fs.read("breaks.txt");
        expect(whole.totalLines).toBe(3);
        expect((await fs.read("breaks.txt", { offset: 1, limit: 1 })).content).toBe("b\u2028");
        await fs.write("all.txt", "1\v2\f3\x1c4\x1d5\x1e6\x857\u20298\r\n9\n\r10");
        const all = await fs.read("all.txt", { offset: 7, limit: 3 });
        expect([all.totalLines, all.content]).toEqual([11, "8\r\n9\n\r"]);
      });

      it("takes the spec's encoding argument: utf-8 (any spelling) reads, other encodings are refused", async () => {
        await fs.write("enc.txt", "café\n");
        expect((await fs.read("enc.txt", { encoding: "utf-8" })).content).toBe("café\n");
        expect((await fs.read("enc.txt", { encoding: "UTF_8" })).content).toBe("café\n");
        await expectCode(fs.read("enc.txt", { encoding: "latin-1" }), "EINVAL", /only utf-8 is supported/);
      });

      it("fails clearly for missing files, directories and binary content", async () => {
        await expectCode(fs.read("missing.txt"), "ENOENT", /missing\.txt/);
        await fs.mkdir("dir");
        await expectCode(fs.read("dir"), "EISDIR");
        await expectCode(fs.read("."), "EISDIR");
        await fs.writeBytes("bin.dat", new Uint8Array([0xff, 0xfe, 0x00, 0x80]));
        await expectCode(fs.read("bin.dat"), "EINVAL", /binary content.*readBytes/);
        await expectCode(fs.read("x.txt", { offset: -1 }), "EINVAL", /offset must be non-negative/);
      });

      it("normalises dot segments and handles UTF-8 names", async () => {
        await fs.write("a/b/c/file.txt", "nested");
        expect((await fs.read("a/b/../b/c/file.txt")).content).toBe("nested");
        expect((await fs.read("./a//b/c/./file.txt")).path).toBe("a/b/c/file.txt");
        await fs.write("café/日本語/файл.txt", "content with émojis 🎉");
        expect((await fs.read("café/日本語/файл.txt")).content).toBe("content with émojis 🎉");
      });

      it("refuses paths escaping the root", async () => {
        await expectCode(fs.read("../etc/passwd"), "EACCES", /escapes root/);
        await expectCode(fs.read("a/../../etc/passwd"), "EACCES", /escapes root/);
      });
    });

    describe("3.4 readBytes", () => {
      it("returns exact bytes with size and pagination", async () => {
        await fs.writeBytes("raw.bin", new Uint8Array([0, 1, 2, 3]));
        const raw = await fs.readBytes("raw.bin");
        expect([...raw.content]).toEqual([0, 1, 2, 3]);
        expect(raw.sizeBytes).toBe(4);
        expect(raw.path).toBe("raw.bin");
        await fs.writeBytes("hello.bin", enc("hello world"));
        const tail = await fs.readBytes("hello.bin", { offset: 6 });
        expect(dec(tail.content)).toBe("world");
        expect(tail.offset).toBe(6);
        const head = await fs.readBytes("hello.bin", { limit: 5 });
        expect(dec(head.content)).toBe("hello");
        expect(head.limit).toBe(5);
        expect(head.truncated).toBe(true);
      });

      it("round-trips invalid UTF-8 and every byte value", async () => {
        const all = Uint8Array.from({ length: 256 }, (_, i) => i);
        await fs.writeBytes("all.bin", all);
        expect([...(await fs.readBytes("all.bin")).content]).toEqual([...all]);
      });

      it("fails clearly", async () => {
        await expectCode(fs.readBytes("missing.bin"), "ENOENT");
        await fs.mkdir("d");
        await expectCode(fs.readBytes("d"), "EISDIR");
        await fs.writeBytes("f.bin", enc("abc"));
        await expectCode(fs.readBytes("f.bin", { offset: -1 }), "EINVAL", /offset must be non-negative/);
        await expectCode(fs.readBytes("f.bin", { limit: -1 }), "EINVAL", /limit must be non-negative/);
      });
    });

    describe("3.5 write and writeBytes", () => {
      it("creates, refuses to re-create, overwrites by default and appends", async () => {
        const created = await fs.write("new.txt", "hello", { mode: "create" });
        expect(created.path).toBe("new.txt");
        expect(created.bytesWritten).toBe(5);
        expect(created.mode).toBe("create");
        expect(String(created)).toContain("new.txt");
        await expectCode(fs.write("new.txt", "again", { mode: "create" }), "EEXIST");
        await expectCode(fs.writeBytes("new.txt", enc("again"), { mode: "create" }), "EEXIST");
        const over = await fs.write("new.txt", "replaced");
        expect(over.mode).toBe("overwrite");
        expect((await fs.read("new.txt")).content).toBe("replaced");
        const appended = await fs.write("new.txt", " more!", { mode: "append" });
        expect(appended.bytesWritten).toBe(6);
        expect((await fs.read("new.txt")).content).toBe("replaced more!");
        await fs.write("fresh.txt", "first", { mode: "append" });
        expect((await fs.read("fresh.txt")).content).toBe("first");
        const bytes = await fs.writeBytes("three.bin", new Uint8Array([1, 2, 3]), { mode: "create" });
        expect(bytes.bytesWritten).toBe(3);
      });

      it("creates parents unless told not to", async () => {
        await fs.write("dir1/dir2/file.txt", "deep");
        expect((await fs.stat("dir1/dir2")).isDirectory).toBe(true);
        await expectCode(fs.write("nope/file.txt", "x", { createParents: false }), "ENOENT");
        expect(await fs.exists("nope")).toBe(false);
      });

      it("refuses the root, directories, files in the way and bad modes", async () => {
        await expectCode(fs.write(".", "x"), "EINVAL", /Cannot write to root/);
        await expectCode(fs.write("/", "x"), "EINVAL", /Cannot write to root/);
        await fs.mkdir("adir");
        await expectCode(fs.write("adir", "x"), "EISDIR");
        await fs.write("afile", "x");
        await expectCode(fs.write("afile/child.txt", "x"), "ENOTDIR");
        await expectCode(fs.write("afile/deeper/child.txt", "x"), "ENOTDIR");
        await expectCode(fs.write("m.txt", "x", { mode: "truncate" as never }), "EINVAL", /write mode/);
      });

      it("enforces content, depth and segment limits", async () => {
        const small = await make({ limits: { maxWriteChars: 100, maxWriteBytes: 100 } });
        await expectCode(small.write("big.txt", "x".repeat(101)), "EINVAL", /Content exceeds maximum/);
        await expectCode(small.writeBytes("big.bin", new Uint8Array(101)), "EINVAL", /Content exceeds maximum/);
        expect((await small.write("ok.txt", "é".repeat(100))).bytesWritten).toBe(200);
        const deep = Array.from({ length: 20 }, (_, i) => `d${i}`).join("/");
        await expectCode(fs.write(`${deep}/f.txt`, "x"), "EINVAL", /Path depth exceeds/);
        await expectCode(fs.write(`${"s".repeat(300)}.txt`, "x"), "EINVAL", /Path segment exceeds/);
        const sixteen = Array.from({ length: 15 }, (_, i) => `e${i}`).join("/");
        await fs.write(`${sixteen}/ok.txt`, "x");
        await fs.write(`${"a".repeat(80)}`, "x");
        await expectCode(fs.write(`${"a".repeat(81)}`, "x"), "EINVAL", /Path segment exceeds/);
      });

      it("is refused on read-only filesystems", async () => {
        const ro = await make({ readOnly: true, seed: { "keep.txt": "kept" } });
        await expectCode(ro.write("x.txt", "x"), "EACCES", /read-only/);
        await expectCode(ro.writeBytes("x.bin", enc("x")), "EACCES", /read-only/);
        expect((await ro.read("keep.txt")).content).toBe("kept");
      });

      it("refuses to create git metadata paths", async () => {
        await expectCode(fs.write(".git/config", "x"), "EACCES", /git metadata/);
        await expectCode(fs.write("sub/.GIT/HEAD", "x"), "EACCES", /git metadata/);
        await expectCode(fs.mkdir(".Git/hooks"), "EACCES", /git metadata/);
        // Names some filesystem resolves to .git (NTFS drops trailing dots and spaces and knows
        // the 8.3 name GIT~1; HFS+ ignores zero-width code points): issue 14, finding 5.
        for (const disguised of [".git./config", ".git /config", "GIT~1/config", "\u200b.git/config", ".git\u200c/config", ".gIt::$INDEX_ALLOCATION/config"]) {
          await expectCode(fs.write(disguised, "x"), "EACCES", /git metadata/);
        }
        await fs.write(".gitignore", "*.log\n");
        await fs.write("a.git/x", "ok");
        await fs.write(".git-keep/x", "ok");
        expect(await fs.exists(".git./config")).toBe(false);
      });
    });

    describe("3.6 stat", () => {
      it("describes files and directories", async () => {
        await fs.write("s.txt", "12345");
        const file = await fs.stat("s.txt");
        expect(file).toMatchObject({ path: "s.txt", isFile: true, isDirectory: false, kind: "file", sizeBytes: 5 });
        expect(String(file)).toContain("s.txt");
        if (caps.timestamps) expect(file.modifiedAt).toBeInstanceOf(Date);
        await fs.mkdir("sd");
        expect(await fs.stat("sd")).toMatchObject({ isDirectory: true, isFile: false, kind: "directory", sizeBytes: 0 });
        expect((await fs.stat(".")).isDirectory).toBe(true);
        await expectCode(fs.stat("nothing"), "ENOENT");
      });
    });

    describe("3.7 list", () => {
      it("lists entries sorted by name with kinds", async () => {
        await fs.write("zeta.txt", "z");
        await fs.mkdir("alpha");
        await fs.write("Beta.txt", "b");
        const entries = await fs.list();
        expect(entries.map((e) => e.name)).toEqual(["Beta.txt", "alpha", "zeta.txt"]);
        expect(entries.find((e) => e.name === "alpha")).toMatchObject({ path: "alpha", isDirectory: true, isFile: false, kind: "directory" });
        expect(String(entries[0])).toContain("Beta.txt");
      });

      it("lists subdirectories, including directories implied by writes", async () => {
        await fs.write("dir1/file.txt", "x");
        await fs.write("dir1/subdir/a.txt", "x");
        await fs.write("dir1/other/b.txt", "x");
        const entries = await fs.list("dir1");
        expect(entries.map((e) => [e.name, e.path, e.kind])).toEqual([
          ["file.txt", "dir1/file.txt", "file"],
          ["other", "dir1/other", "directory"],
          ["subdir", "dir1/subdir", "directory"],
        ]);
        expect(await fs.list("dir1/subdir/")).toHaveLength(1);
      });

      it("fails for missing directories and files", async () => {
        await expectCode(fs.list("nope"), "ENOENT");
        await fs.write("f.txt", "x");
        await expectCode(fs.list("f.txt"), "ENOTDIR");
      });
    });

    describe("3.8 glob", () => {
      beforeEach(async () => {
        await fs.write("a.txt", "a");
        await fs.write("b.txt", "b");
        await fs.write("c.py", "c");
        await fs.write("src/main.py", "m");
        await fs.write("src/util/helpers.py", "h");
        await fs.write("src/notes.txt", "n");
        await fs.write(".hidden.txt", "h");
        await fs.write(".github/workflows/ci.yml", "y");
        await fs.mkdir("emptydir");
      });

      it("matches like Python's fnmatch: * crosses '/', so *.txt finds files at every depth", async () => {
        expect((await fs.glob("*.txt")).map((m) => m.path)).toEqual([".hidden.txt", "a.txt", "b.txt", "src/notes.txt"]);
        expect((await fs.glob("*")).map((m) => m.path)).toEqual([".github/workflows/ci.yml", ".hidden.txt", "a.txt", "b.txt", "c.py", "src/main.py", "src/notes.txt", "src/util/helpers.py"]);
        expect((await fs.glob("src/*")).map((m) => m.path)).toEqual(["src/main.py", "src/notes.txt", "src/util/helpers.py"]);
      });

      it("needs a '/' for **/, sorted, files only; ?, [seq] and [!seq] match one character", async () => {
        const nested = await fs.glob("**/*.py");
        expect(nested.map((m) => m.path)).toEqual(["src/main.py", "src/util/helpers.py"]);
        expect(nested.every((m) => m.isFile)).toBe(true);
        expect((await fs.glob("**")).map((m) => m.path)).toContain(".github/workflows/ci.yml");
        expect((await fs.glob("**")).some((m) => m.path === "emptydir" || m.path === "src")).toBe(false);
        expect((await fs.glob("?.txt")).map((m) => m.path)).toEqual(["a.txt", "b.txt"]);
        expect((await fs.glob("[ab].*")).map((m) => m.path)).toEqual(["a.txt", "b.txt"]);
        expect((await fs.glob("[!ab].*")).map((m) => m.path)).toEqual(["c.py"]);
        expect((await fs.glob("src?main.py")).map((m) => m.path)).toEqual(["src/main.py"]);
        expect(await fs.glob("*.{yml,txt}")).toEqual([]);
      });

      it("keeps the path-aware syntax as an option: * stays in a directory, ** spans any depth, {a,b}", async () => {
        const path = { syntax: "path" } as const;
        expect((await fs.glob("*.txt", path)).map((m) => m.path)).toEqual([".hidden.txt", "a.txt", "b.txt"]);
        expect((await fs.glob("**/*.py", path)).map((m) => m.path)).toEqual(["c.py", "src/main.py", "src/util/helpers.py"]);
        expect((await fs.glob("src/**", path)).map((m) => m.path)).toEqual(["src/main.py", "src/notes.txt", "src/util/helpers.py"]);
        expect((await fs.glob("**/*.{yml,txt}", path)).map((m) => m.path)).toEqual([".github/workflows/ci.yml", ".hidden.txt", "a.txt", "b.txt", "src/notes.txt"]);
      });

      it("scopes matching to a base path; a missing base gives no matches", async () => {
        const scoped = await fs.glob("*.py", { path: "src" });
        expect(scoped.map((m) => m.path)).toEqual(["src/main.py", "src/util/helpers.py"]);
        expect((await fs.glob("util/*", { path: "src" })).map((m) => m.path)).toEqual(["src/util/helpers.py"]);
        expect(String(scoped[0])).toContain("src/main.py");
        expect(await fs.glob("*", { path: "does-not-exist" })).toEqual([]);
        expect(await fs.glob("*", { path: "a.txt" })).toEqual([]);
      });

      it("rejects malformed patterns", async () => {
        await expectCode(fs.glob(""), "EINVAL");
        await expectCode(fs.glob("{a,b", { syntax: "path" }), "EINVAL", /Unbalanced braces/);
      });
    });

    describe("3.9 grep", () => {
      beforeEach(async () => {
        await fs.write("text.txt", "hello world\ngoodbye\nhello again\n");
        await fs.write("other.md", "say hello\n");
        await fs.write("src/code.py", "print('hello')\nx = 1\n");
        await fs.writeBytes("binary.bin", new Uint8Array([0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00, 0xff]));
        await fs.writeBytes("latin1.txt", new Uint8Array([0x68, 0xe9, 0x6c, 0x6c, 0x6f]));
      });

      it("finds matching lines with offsets, sorted by path and line", async () => {
        const matches = await fs.grep("hello");
        expect(matches.map((m) => [m.path, m.lineNumber])).toEqual([
          ["other.md", 1],
          ["src/code.py", 1],
          ["text.txt", 1],
          ["text.txt", 3],
        ]);
        const first = matches.find((m) => m.path === "other.md");
        expect(first).toMatchObject({ lineContent: "say hello", matchStart: 4, matchEnd: 9 });
        expect(String(first)).toContain("say hello");
      });

      it("filters by glob, caps matches and scopes by path", async () => {
        expect((await fs.grep("hello", { glob: "*.txt" })).map((m) => m.path)).toEqual(["text.txt", "text.txt"]);
        expect((await fs.grep("hello", { glob: "*.py" })).map((m) => m.path)).toEqual(["src/code.py"]);
        expect(await fs.grep("hello", { glob: "*.py", globSyntax: "path" })).toEqual([]);
        expect(await fs.grep("hello", { maxMatches: 2 })).toHaveLength(2);
        expect(await fs.grep("hello", { maxMatches: 0 })).toEqual([]);
        expect((await fs.grep("hello", { path: "src" })).map((m) => m.path)).toEqual(["src/code.py"]);
        expect(await fs.grep("hello", { path: "missing" })).toEqual([]);
        expect((await fs.grep("HELLO", { ignoreCase: true })).length).toBe(4);
        expect((await fs.grep("(?i)HELLO")).length).toBe(4);
      });

      it("numbers lines as Python's str.splitlines and reports them without their line break", async () => {
        await fs.write("breaks.txt", "a\rb\u2028c\r\nb\n");
        const found = await fs.grep("b|c", { path: ".", glob: "breaks.txt" });
        expect(found.map((m) => [m.lineNumber, m.lineContent, m.matchStart])).toEqual([
          [2, "b", 0],
          [3, "c", 0],
          [4, "b", 0],
        ]);
        expect((await fs.grep("^c$", { glob: "breaks.txt" })).map((m) => m.lineNumber)).toEqual([3]);
      });

      it("skips binary and undecodable files", async () => {
        const any = await fs.grep(".*");
        expect(new Set(any.map((m) => m.path))).toEqual(new Set(["other.md", "src/code.py", "text.txt"]));
      });

      it("reports invalid patterns", async () => {
        await expectCode(fs.grep("[invalid"), "EINVAL", /Invalid regex/);
        await expectCode(fs.grep("x", { maxMatches: -1 }), "EINVAL");
      });

      it("stops a catastrophic pattern within its time budget", async () => {
        const fast = await make({ limits: { grepTimeoutMs: 1_000 } });
        await fast.write("redos.txt", `${"a".repeat(40)}!\n`);
        const started = Date.now();
        try {
          await fast.grep("(a*)*\\1b");
        } catch (error) {
          expect((error as { code?: string }).code).toBe("ETIMEDOUT");
        }
        expect(Date.now() - started).toBeLessThan(5_000);
      });
    });

    describe("3.10 delete", () => {
      it("deletes files and empty directories", async () => {
        await fs.write("gone.txt", "x");
        await fs.delete("gone.txt");
        expect(await fs.exists("gone.txt")).toBe(false);
        await fs.mkdir("empty");
        await fs.delete("empty");
        expect(await fs.exists("empty")).toBe(false);
      });

      it("needs recursive for non-empty directories and then removes the tree", async () => {
        await fs.write("a/b/c/file.txt", "x");
        await expectCode(fs.delete("a"), "ENOTEMPTY", /not empty/);
        expect(await fs.exists("a/b/c/file.txt")).toBe(true);
        await fs.delete("a", { recursive: true });
        for (const p of ["a", "a/b", "a/b/c"]) expect(await fs.exists(p)).toBe(false);
      });

      it("fails for missing paths, the root and read-only filesystems", async () => {
        await expectCode(fs.delete("missing"), "ENOENT");
        await expectCode(fs.delete("."), "EACCES", /Cannot delete root/);
        await expectCode(fs.delete("/", { recursive: true }), "EACCES", /Cannot delete root/);
        const ro = await make({ readOnly: true, seed: { "keep.txt": "k" } });
        await expectCode(ro.delete("keep.txt"), "EACCES", /read-only/);
        expect(await ro.exists("keep.txt")).toBe(true);
      });
    });

    describe("3.11 mkdir", () => {
      it("creates directories, chains and is idempotent when asked", async () => {
        await fs.mkdir("one");
        expect((await fs.stat("one")).isDirectory).toBe(true);
        await fs.mkdir("p/q/r", { parents: true });
        expect(await fs.exists("p/q/r")).toBe(true);
        await expectCode(fs.mkdir("x/y", { parents: false }), "ENOENT");
        await fs.mkdir("single", { parents: false });
        await fs.mkdir("one", { existOk: true });
        await expectCode(fs.mkdir("one", { existOk: false }), "EEXIST");
        await fs.write("file", "x");
        await expectCode(fs.mkdir("file"), "EEXIST");
        await expectCode(fs.mkdir("file/sub"), "ENOTDIR");
        await fs.mkdir(".");
        const ro = await make({ readOnly: true });
        await expectCode(ro.mkdir("nope"), "EACCES", /read-only/);
      });
    });

    describe("3.12 streaming", () => {
      it("reads with read(), chunks(), iteration and seek()", async () => {
        await fs.write("hello.txt", "hello world");
        const reader = await fs.openRead("hello.txt");
        expect(reader.path).toBe("hello.txt");
        expect(reader.size).toBe(11);
        expect(dec(await reader.read())).toBe("hello world");
        expect(await reader.seek(5)).toBe(5);
        expect(reader.position).toBe(5);
        expect(dec(await reader.read())).toBe(" world");
        expect(await reader.seek(-3, 2)).toBe(8);
        expect(dec(await reader.read())).toBe("rld");
        await expectCode(reader.seek(0, 99 as 0), "EINVAL", /whence/);
        await reader.close();
        await reader.close();
        await expectCode(reader.read(), "EINVAL", /closed/);

        const data = Uint8Array.from({ length: 100_000 }, (_, i) => i % 251);
        await fs.writeBytes("big.bin", data);
        const chunked = await fs.openRead("big.bin");
        const chunks = await collect(chunked.chunks(10_000));
        expect(chunks).toHaveLength(10);
        expect([...concat(chunks)]).toEqual([...data]);
        await chunked.close();
        const iterated = await fs.openRead("big.bin");
        expect(concat(await collect(iterated)).length).toBe(100_000);
        {
          await using disposable = await fs.openRead("hello.txt");
          expect(disposable.closed).toBe(false);
        }
      });

      it("refuses missing files and directories", async () => {
        await expectCode(fs.openRead("missing"), "ENOENT");
        await fs.mkdir("d");
        await expectCode(fs.openRead("d"), "EISDIR");
        await expectCode(fs.openText("missing"), "ENOENT");
        await expectCode(fs.openText("d"), "EISDIR");
      });

      it("writes atomically on close and honours modes", async () => {
        const writer = await fs.openWrite("out.txt", { mode: "create" });
        expect(writer.path).toBe("out.txt");
        expect(await writer.write("hello world")).toBe(11);
        expect(await fs.exists("out.txt")).toBe(false);
        await writer.close();
        await writer.close();
        expect((await fs.read("out.txt")).content).toBe("hello world");
        await expectCode(writer.write("x"), "EINVAL", /closed/);

        const all = await fs.openWrite("parts.txt");
        expect(await all.writeAll(["a", enc("b"), "c"])).toBe(3);
        expect(all.bytesWritten).toBe(3);
        await all.close();
        expect((await fs.read("parts.txt")).content).toBe("abc");

        const over = await fs.openWrite("parts.txt", { mode: "overwrite" });
        await over.write("new");
        await over.close();
        expect((await fs.read("parts.txt")).content).toBe("new");
        const app = await fs.openWrite("parts.txt", { mode: "append" });
        await app.write("+more");
        expect((await app.close()).bytesWritten).toBe(5);
        expect((await fs.read("parts.txt")).content).toBe("new+more");

        await expectCode(fs.openWrite("parts.txt", { mode: "create" }), "EEXIST");
        await (await fs.openWrite("x/y/z.txt")).close();
        expect(await fs.exists("x/y/z.txt")).toBe(true);
        await expectCode(fs.openWrite("q/z.txt", { createParents: false }), "ENOENT");
        await expectCode(fs.openWrite("."), "EINVAL", /root/);
      });

      it("leaves the target untouched when the writing code fails", async () => {
        await fs.write("keep.txt", "original");
        await expect(
          withWriter(await fs.openWrite("keep.txt"), async (w) => {
            await w.write("partial");
            throw new Error("boom");
          }),
        ).rejects.toThrow("boom");
        expect((await fs.read("keep.txt")).content).toBe("original");
        await expect(
          withWriter(await fs.openWrite("created.txt", { mode: "create" }), async (w) => {
            await w.write("partial");
            throw new Error("boom");
          }),
        ).rejects.toThrow("boom");
        expect(await fs.exists("created.txt")).toBe(false);
        await expect(
          withWriter(await fs.openWrite("closed.txt"), async (w) => {
            await w.write("kept");
            await w.close();
            throw new Error("after close");
          }),
        ).rejects.toThrow("after close");
        expect((await fs.read("closed.txt")).content).toBe("kept");
      });

      it("reads text line by line", async () => {
        await fs.write("lines.txt", "  line1  \nline2\nline3");
        const text = await fs.openText("lines.txt");
        expect(text.encoding).toBe("utf-8");
        expect(text.path).toBe("lines.txt");
        expect(await text.readline()).toBe("  line1  \n");
        expect(text.lineNumber).toBe(1);
        expect(await text.readline()).toBe("line2\n");
        expect(await text.readline()).toBe("line3");
        expect(await text.readline()).toBe("");
        expect(text.lineNumber).toBe(3);
        await text.close();
        await expectCode(text.readline(), "EINVAL", /closed/);
        expect(await collect((await fs.openText("lines.txt")).lines({ strip: true }))).toEqual(["  line1", "line2", "line3"]);
        expect(await collect((await fs.openText("lines.txt")).lines())).toEqual(["  line1  \n", "line2\n", "line3"]);
        expect(await collect(await fs.openText("lines.txt"))).toHaveLength(3);
        expect(await (await fs.openText("lines.txt")).read()).toBe("  line1  \nline2\nline3");
        await expectCode(fs.openText("lines.txt", { encoding: "latin-1" }), "EINVAL", /utf-8/);
      });

      it("copies a stream byte for byte and refuses writers when read-only", async () => {
        const data = Uint8Array.from({ length: 50_000 }, (_, i) => (i * 7) % 256);
        await fs.writeBytes("src.bin", data);
        const dst = await fs.openWrite("dst.bin");
        await dst.writeAll(await fs.openRead("src.bin"));
        await dst.close();
        expect([...(await fs.readBytes("dst.bin")).content]).toEqual([...data]);
        const ro = await make({ readOnly: true });
        await expectCode(ro.openWrite("x.txt"), "EACCES");
      });
    });

    describe("mount points", () => {
      it("treats paths under the mount point as root-relative", async () => {
        const mounted = await make({ mountPoint: "/workspace" });
        expect(mounted.mountPoint).toBe("/workspace");
        await mounted.write("/workspace/src/a.ts", "export {}");
        expect((await mounted.read("src/a.ts")).content).toBe("export {}");
        expect((await mounted.read("workspace/src/a.ts")).path).toBe("src/a.ts");
        expect((await mounted.list("/workspace")).map((e) => e.name)).toEqual(["src"]);
        expect(await mounted.exists("/workspacefoo")).toBe(false);
        expect((await mounted.glob("*.ts", { path: "/workspace/src" })).map((m) => m.path)).toEqual(["src/a.ts"]);
        expect((await mounted.glob("workspace/*")).map((m) => m.path)).toEqual([]);
      });
    });

    describe("archives", () => {
      let dir: string;
      beforeEach(async () => {
        dir = await mkdtemp(join(tmpdir(), "wink-conformance-"));
      });
      afterEach(async () => {
        await rm(dir, { recursive: true, force: true });
      });

      it("exports and re-imports byte for byte, replacing the previous state", async () => {
        const binary = Uint8Array.from({ length: 3000 }, (_, i) => (i * 31) % 256);
        await fs.write("src/main.py", "print('hello')\n");
        await fs.write("README.md", "# Project\n");
        await fs.writeBytes("assets/blob.bin", binary);
        await fs.write("empty.txt", "");
        await fs.mkdir("empty/dir");
        await fs.write("run.sh", "#!/bin/sh\necho hi\n", { fileMode: 0o755 });
        const archive = join(dir, "snap.fs.zip");
        const exported = await fs.exportArchive(archive);
        expect(exported.fileCount).toBe(5);
        expect(exported.totalBytes).toBe(15 + 10 + 3000 + 0 + 18);
        await fs.write("src/main.py", "changed");
        await fs.write("added-later.txt", "should disappear");
        await fs.delete("README.md");
        const imported = await fs.importArchive(archive);
        expect(imported.fileCount).toBe(5);
        expect((await fs.read("src/main.py")).content).toBe("print('hello')\n");
        expect((await fs.read("README.md")).content).toBe("# Project\n");
        expect([...(await fs.readBytes("assets/blob.bin")).content]).toEqual([...binary]);
        expect(await fs.exists("added-later.txt")).toBe(false);
        expect((await fs.stat("empty/dir")).isDirectory).toBe(true);
        expect((await fs.stat("empty.txt")).sizeBytes).toBe(0);
        if (caps.fileModes) expect(((await fs.stat("run.sh")).mode ?? 0) & 0o111).not.toBe(0);
      });

      it("refuses .git paths by default, and round-trips nested git repositories when allowed", async () => {
        // Agents cannot create .git paths, but a workspace may hold a cloned repository:
        // build such an archive directly, as another backend or a shell command would have.
        const files: Record<string, string> = {
          "repo/src/main.c": "int main(){}\n",
          "repo/.git/HEAD": "ref: refs/heads/main\n",
          "repo/.git/config": "[core]\n\tbare = false\n",
          "top.txt": "top",
        };
        const archive = join(dir, "nested-git.fs.zip");
        await writeArchive(
          archive,
          Object.entries(files).map(([path, text]) => ({
            path,
            kind: "file" as const,
            size: enc(text).length,
            mode: 0o644,
            mtimeMs: null,
            async *chunks() {
              yield enc(text);
            },
          })),
        );
        await fs.write("marker.txt", "keep");
        // An archive is untrusted: a planted .git/config could run commands at the next `git status`.
        await expect(fs.importArchive(archive)).rejects.toMatchObject({ code: "E_ARCHIVE_ENTRY", data: { entry: "files/repo/.git/HEAD", reason: "git-metadata" } });
        expect((await fs.read("marker.txt")).content).toBe("keep");
        await fs.importArchive(archive, { allowGitMetadata: true });
        expect((await fs.read("repo/.git/HEAD")).content).toBe("ref: refs/heads/main\n");
        expect((await fs.read("top.txt")).content).toBe("top");
        const again = join(dir, "again.fs.zip");
        expect((await fs.exportArchive(again)).fileCount).toBe(4);
        await fs.write("marker.txt", "keep");
        await expect(fs.importArchive(again)).rejects.toMatchObject({ code: "E_ARCHIVE_ENTRY" });
        expect((await fs.read("marker.txt")).content).toBe("keep");
        await fs.importArchive(again, { allowGitMetadata: true });
        expect((await fs.read("repo/.git/config")).content).toBe("[core]\n\tbare = false\n");
      });

      it("leaves the workspace exactly as it was when an import fails", async () => {
        await fs.write("keep/me.txt", "precious");
        const broken = join(dir, "broken.fs.zip");
        await writeFile(broken, "PK\u0003\u0004 this is not a zip archive");
        await expect(fs.importArchive(broken)).rejects.toMatchObject({ code: "E_ARCHIVE_CORRUPT" });
        expect((await fs.read("keep/me.txt")).content).toBe("precious");
        expect((await fs.list()).map((e) => e.name)).toEqual(["keep"]);
        await expect(fs.importArchive(join(dir, "missing.fs.zip"))).rejects.toBeInstanceOf(Error);
        expect((await fs.read("keep/me.txt")).content).toBe("precious");
      });

      it("is refused on read-only filesystems", async () => {
        await fs.write("a.txt", "a");
        const archive = join(dir, "a.fs.zip");
        await fs.exportArchive(archive);
        const ro = await make({ readOnly: true, seed: { "b.txt": "b" } });
        await expectCode(ro.importArchive(archive), "EACCES");
        expect(await ro.exists("b.txt")).toBe(true);
      });
    });

    describeHostilePaths(() => fs, make);

    if (caps.snapshots) describeSnapshotConformance(() => fs);
  });
}
