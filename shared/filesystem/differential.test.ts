/**
 * Differential property test: the same random operations on the in-memory backend, the host
 * backend and plain Node `fs` in a temp directory must be observably the same — every
 * result or error code, and the whole tree after each sequence. Then every final tree must
 * survive `importArchive(exportArchive(x))` into a fresh backend of each kind.
 *
 * The Node `fs` side is a deliberately naive adapter written here with `node:fs` calls only;
 * it shares nothing with the backends but the glob compiler (what is compared is traversal,
 * errors and contents, not the glob syntax, which glob tests cover).
 */
import fc from "fast-check";
import * as nodeFs from "node:fs/promises";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { globMatcher } from "./glob.js";
import { HostFilesystem } from "./host/host-filesystem.js";
import { InMemoryFilesystem } from "./memory/in-memory-filesystem.js";
import type { Filesystem } from "./protocol.js";

const base = await mkdtemp(join(tmpdir(), "wink-differential-"));
afterAll(() => rm(base, { recursive: true, force: true }));
let counter = 0;
async function freshDir(prefix: string): Promise<string> {
  const dir = join(base, `${prefix}-${counter++}`);
  await nodeFs.mkdir(dir);
  return dir;
}

type Outcome = { ok: unknown } | { error: string };

type Op =
  | { op: "write"; path: string; content: string; mode: "create" | "overwrite" | "append"; createParents: boolean }
  | { op: "writeBytes"; path: string; bytes: number[] }
  | { op: "read"; path: string; offset: number; limit: number }
  | { op: "readBytes"; path: string; offset: number }
  | { op: "delete"; path: string; recursive: boolean }
  | { op: "mkdir"; path: string; parents: boolean; existOk: boolean }
  | { op: "list"; path: string }
  | { op: "stat"; path: string }
  | { op: "exists"; path: string }
  | { op: "glob"; pattern: string }
  | { op: "grep"; pattern: string };

/** What every side must agree on. */
interface Subject {
  run(op: Op): Promise<Outcome>;
  tree(): Promise<Record<string, string>>;
}

async function outcome(call: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await call() };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== "string") throw error;
    return { error: code };
  }
}

function protocolSubject(fs: Filesystem): Subject {
  return {
    run: (op) =>
      outcome(async () => {
        switch (op.op) {
          case "write":
            return (await fs.write(op.path, op.content, { mode: op.mode, createParents: op.createParents })).bytesWritten;
          case "writeBytes":
            return (await fs.writeBytes(op.path, Uint8Array.from(op.bytes))).bytesWritten;
          case "read": {
            const r = await fs.read(op.path, { offset: op.offset, limit: op.limit });
            return [r.content, r.totalLines, r.limit, r.truncated];
          }
          case "readBytes":
            return [...(await fs.readBytes(op.path, { offset: op.offset })).content];
          case "delete":
            return await fs.delete(op.path, { recursive: op.recursive });
          case "mkdir":
            return await fs.mkdir(op.path, { parents: op.parents, existOk: op.existOk });
          case "list":
            return (await fs.list(op.path)).map((e) => [e.name, e.kind]);
          case "stat": {
            const s = await fs.stat(op.path);
            return [s.kind, s.sizeBytes];
          }
          case "exists":
            return await fs.exists(op.path);
          case "glob":
            return (await fs.glob(op.pattern)).map((m) => m.path);
          case "grep":
            return (await fs.grep(op.pattern)).map((m) => [m.path, m.lineNumber, m.matchStart, m.matchEnd]);
        }
      }),
    tree: () => treeOf(fs),
  };
}

async function treeOf(fs: Filesystem): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const visit = async (dir: string): Promise<void> => {
    for (const entry of await fs.list(dir)) {
      if (entry.isDirectory) {
        out[`${entry.path}/`] = "dir";
        await visit(entry.path);
      } else out[entry.path] = Buffer.from((await fs.readBytes(entry.path)).content).toString("base64");
    }
  };
  await visit(".");
  return out;
}

/** Plain `node:fs` in a directory, mapped to the protocol's observable results by hand. */
function nodeSubject(root: string): Subject {
  const abs = (p: string): string => join(root, p);
  const kindOf = async (p: string): Promise<"file" | "directory" | null> => {
    try {
      return (await nodeFs.stat(abs(p))).isDirectory() ? "directory" : "file";
    } catch {
      return null;
    }
  };
  const ancestorFile = async (p: string): Promise<boolean> => {
    const parts = p.split("/");
    for (let i = 1; i < parts.length; i++) if ((await kindOf(parts.slice(0, i).join("/"))) === "file") return true;
    return false;
  };
  const walkFiles = async (dir: string, prefix: string, out: string[]): Promise<void> => {
    for (const name of (await nodeFs.readdir(abs(dir))).sort()) {
      const rel = prefix === "" ? name : `${prefix}/${name}`;
      if ((await kindOf(rel)) === "directory") await walkFiles(rel, rel, out);
      else out.push(rel);
    }
  };
  // Python's str.splitlines(keepends=True), written out here with its own regex.
  const lines = (text: string): string[] => text.match(/[^\n\r\v\f\x1c-\x1e\x85\u2028\u2029]*(?:\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029])|[^\n\r\v\f\x1c-\x1e\x85\u2028\u2029]+$/g) ?? [];
  const errno = (error: unknown): string => {
    const code = (error as { code?: string }).code ?? "EIO";
    return code === "EPERM" ? "EACCES" : code;
  };
  return {
    async run(op) {
      try {
        switch (op.op) {
          case "write": {
            const kind = await kindOf(op.path);
            if (kind === "directory") return { error: "EISDIR" };
            if (op.mode === "create" && kind === "file") return { error: "EEXIST" };
            if (await ancestorFile(op.path)) return { error: "ENOTDIR" };
            const parent = op.path.split("/").slice(0, -1).join("/");
            if (parent !== "" && (await kindOf(parent)) === null) {
              if (!op.createParents) return { error: "ENOENT" };
              await nodeFs.mkdir(abs(parent), { recursive: true });
            }
            await nodeFs.writeFile(abs(op.path), op.content, { flag: op.mode === "append" ? "a" : "w" });
            return { ok: Buffer.byteLength(op.content) };
          }
          case "writeBytes": {
            const kind = await kindOf(op.path);
            if (kind === "directory") return { error: "EISDIR" };
            if (await ancestorFile(op.path)) return { error: "ENOTDIR" };
            await nodeFs.mkdir(abs(op.path.split("/").slice(0, -1).join("/")), { recursive: true });
            await nodeFs.writeFile(abs(op.path), Uint8Array.from(op.bytes));
            return { ok: op.bytes.length };
          }
          case "read": {
            if (await ancestorFile(op.path)) return { error: "ENOTDIR" };
            const kind = await kindOf(op.path);
            if (kind === null) return { error: "ENOENT" };
            if (kind === "directory") return { error: "EISDIR" };
            const bytes = await nodeFs.readFile(abs(op.path));
            let text: string;
            try {
              text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
            } catch {
              return { error: "EINVAL" };
            }
            const all = lines(text);
            const window = all.slice(op.offset, op.offset + op.limit);
            return { ok: [window.join(""), all.length, window.length, op.offset + op.limit < all.length] };
          }
          case "readBytes": {
            if (await ancestorFile(op.path)) return { error: "ENOTDIR" };
            const kind = await kindOf(op.path);
            if (kind === null) return { error: "ENOENT" };
            if (kind === "directory") return { error: "EISDIR" };
            return { ok: [...(await nodeFs.readFile(abs(op.path))).subarray(op.offset)] };
          }
          case "delete": {
            if (await ancestorFile(op.path)) return { error: "ENOTDIR" };
            const kind = await kindOf(op.path);
            if (kind === null) return { error: "ENOENT" };
            if (kind === "directory" && !op.recursive && (await nodeFs.readdir(abs(op.path))).length > 0) return { error: "ENOTEMPTY" };
            await nodeFs.rm(abs(op.path), { recursive: true });
            return { ok: undefined };
          }
          case "mkdir": {
            const kind = await kindOf(op.path);
            if (kind === "directory" && op.existOk) return { ok: undefined };
            if (kind !== null) return { error: "EEXIST" };
            if (await ancestorFile(op.path)) return { error: "ENOTDIR" };
            const parent = op.path.split("/").slice(0, -1).join("/");
            if (parent !== "" && (await kindOf(parent)) === null && !op.parents) return { error: "ENOENT" };
            await nodeFs.mkdir(abs(op.path), { recursive: true });
            return { ok: undefined };
          }
          case "list": {
            if (await ancestorFile(op.path)) return { error: "ENOTDIR" };
            const kind = await kindOf(op.path);
            if (kind === null) return { error: "ENOENT" };
            if (kind === "file") return { error: "ENOTDIR" };
            const names = (await nodeFs.readdir(abs(op.path))).sort();
            return { ok: await Promise.all(names.map(async (n) => [n, await kindOf(`${op.path}/${n}`)])) };
          }
          case "stat": {
            if (await ancestorFile(op.path)) return { error: "ENOTDIR" };
            const kind = await kindOf(op.path);
            if (kind === null) return { error: "ENOENT" };
            return { ok: [kind, kind === "file" ? (await nodeFs.stat(abs(op.path))).size : 0] };
          }
          case "exists":
            return { ok: !(await ancestorFile(op.path)) && (await kindOf(op.path)) !== null };
          case "glob": {
            const matcher = globMatcher(op.pattern);
            const files: string[] = [];
            await walkFiles("", "", files);
            return { ok: files.filter((f) => matcher.test(f)) };
          }
          case "grep": {
            const regex = new RegExp(op.pattern);
            const files: string[] = [];
            await walkFiles("", "", files);
            const found: unknown[] = [];
            for (const file of files) {
              const bytes = await nodeFs.readFile(abs(file));
              if (bytes.includes(0)) continue;
              let text: string;
              try {
                text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
              } catch {
                continue;
              }
              lines(text).forEach((raw, i) => {
                const line = raw.replace(/(?:\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029])$/, "");
                const match = regex.exec(line);
                if (match) found.push([file, i + 1, match.index, match.index + match[0].length]);
              });
            }
            return { ok: found };
          }
        }
      } catch (error) {
        return { error: errno(error) };
      }
    },
    async tree() {
      const out: Record<string, string> = {};
      const visit = async (rel: string): Promise<void> => {
        for (const name of (await nodeFs.readdir(abs(rel))).sort()) {
          const child = rel === "" ? name : `${rel}/${name}`;
          if ((await kindOf(child)) === "directory") {
            out[`${child}/`] = "dir";
            await visit(child);
          } else out[child] = (await nodeFs.readFile(abs(child))).toString("base64");
        }
      };
      await visit("");
      return out;
    },
  };
}

// Small alphabets so that operations collide: overwrites, files in the way, non-empty deletes.
const segment = fc.constantFrom("a", "b", "c.txt", "d.md", "é");
const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("/"));
const text = fc.array(fc.constantFrom("x", "y", " ", "\n", "\r\n", "\r", "\u2028", "\u000b", "é", "hello"), { maxLength: 8 }).map((p) => p.join(""));
const operation: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant("write" as const), path, content: text, mode: fc.constantFrom("create" as const, "overwrite" as const, "append" as const), createParents: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("writeBytes" as const), path, bytes: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("read" as const), path, offset: fc.integer({ min: 0, max: 3 }), limit: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("readBytes" as const), path, offset: fc.integer({ min: 0, max: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), path, recursive: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("mkdir" as const), path, parents: fc.boolean(), existOk: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("list" as const), path: fc.oneof(path, fc.constant(".")) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("stat" as const), path }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("exists" as const), path }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("glob" as const), pattern: fc.constantFrom("*", "**", "**/*.txt", "*.txt", "a/*", "*/b/*", "[ab]/*.md", "?/?") }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("grep" as const), pattern: fc.constantFrom("x", "^y", "l+o$", "é", "\\s") }) },
);

// "a" is a file in one sequence and a directory in another: normalise the directory listing
// of "." in the oracle, which lists the root itself fine.
describe("backends agree with plain Node fs", () => {
  it("on every result and on the final tree, for random operation sequences", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 25 }), async (ops) => {
        const memory = new InMemoryFilesystem();
        const hostRoot = await freshDir("host");
        const host = new HostFilesystem({ root: hostRoot, stateDir: join(base, "state"), durable: false });
        const plainRoot = await freshDir("plain");
        const subjects: [string, Subject][] = [
          ["memory", protocolSubject(memory)],
          ["host", protocolSubject(host)],
          ["node fs", nodeSubject(plainRoot)],
        ];
        for (const [index, op] of ops.entries()) {
          const results = await Promise.all(subjects.map(async ([, subject]) => subject.run(op)));
          for (let i = 1; i < subjects.length; i++) {
            expect(results[i], `op ${index} ${JSON.stringify(op)}: ${subjects[i]?.[0]} vs memory`).toEqual(results[0]);
          }
        }
        const trees = await Promise.all(subjects.map(([, subject]) => subject.tree()));
        expect(trees[1]).toEqual(trees[0]);
        expect(trees[2]).toEqual(trees[0]);

        // importArchive(exportArchive(x)) == x, across backends in both directions.
        const fromMemory = join(base, `m-${counter++}.fs.zip`);
        const fromHost = join(base, `h-${counter++}.fs.zip`);
        await memory.exportArchive(fromMemory);
        await host.exportArchive(fromHost);
        const intoHost = new HostFilesystem({ root: await freshDir("into-host"), stateDir: join(base, "state"), durable: false });
        const intoMemory = new InMemoryFilesystem();
        await intoHost.importArchive(fromMemory);
        await intoMemory.importArchive(fromHost);
        expect(await treeOf(intoHost)).toEqual(trees[0]);
        expect(await treeOf(intoMemory)).toEqual(trees[0]);
        await Promise.all([rm(hostRoot, { recursive: true }), rm(plainRoot, { recursive: true }), rm(fromMemory), rm(fromHost), rm(intoHost.root, { recursive: true })]);
      }),
      { numRuns: 150 },
    );
  }, 300_000);
});
