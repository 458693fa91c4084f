/**
 * The contract every source driver passes (unstorage's `testDriver`): the same listing,
 * stat, ranged read, freshness and key behaviours on a local folder, nginx and radosgw.
 * Each driver's test file calls `describeSourceContract` with a way to make a fresh, empty
 * namespace (a folder, a URL, a bucket prefix) and to write into it; what a driver cannot
 * do is declared there, never skipped silently.
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SourceError } from "../errors.js";
import type { ListPage, ObjectInfo } from "./driver.js";
import { LineIndex } from "./line-index.js";
import type { Source } from "./source.js";

/** A fresh, empty namespace of a store and the means to change it behind the source's back. */
export interface ContractNamespace {
  readonly source: Source;
  /** Creates or replaces an object (for a file: a new file renamed over the old one). */
  put(key: string, body: Uint8Array | string): Promise<void>;
  remove(key: string): Promise<void>;
}

export interface SourceContractOptions {
  readonly name: string;
  readonly fresh: () => Promise<ContractNamespace>;
  /**
   * Whether a same-size rewrite within one second gets a new validator (false for nginx,
   * whose ETag is mtime-in-seconds and size); the contract then changes sizes when it
   * rewrites, and the driver's own tests cover the limit.
   */
  readonly sameSizeRewriteDetected: boolean;
}

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString("utf8");

/** The `SourceError` `promise` rejects with (the test fails if it resolves or rejects with anything else). */
export async function sourceFailure(promise: Promise<unknown>): Promise<SourceError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error, "expected a SourceError").toBeInstanceOf(SourceError);
  return error as SourceError;
}

async function expectSourceError(promise: Promise<unknown>, code: string): Promise<SourceError> {
  const error = await sourceFailure(promise);
  expect(error.code).toBe(code);
  return error;
}

/** Writes a new file and renames it over the old one (a new inode, as writers that replace files do). */
export function replaceFile(folder: string, key: string, body: Uint8Array | string): void {
  const target = path.join(folder, key);
  mkdirSync(path.dirname(target), { recursive: true });
  const temp = `${target}.tmp-${process.pid}`;
  writeFileSync(temp, body);
  renameSync(temp, target);
}

async function listAll(source: Source, prefix: string, options: { delimiter?: "/"; limit?: number } = {}): Promise<{ pages: ListPage[]; keys: string[]; prefixes: string[] }> {
  const pages: ListPage[] = [];
  for await (const page of source.listPages(prefix, options)) pages.push(page);
  return { pages, keys: pages.flatMap((page) => page.objects.map((object) => object.key)), prefixes: pages.flatMap((page) => page.prefixes) };
}

/** Keys whose order differs between UTF-16 and UTF-8 byte order, with spaces, "+" and a folder among them. */
const ORDER_KEYS = ["B", "a b", "a+b", "a-b", "a/b", "a/c/d", "a\u00e9", "a\uff61", "a\u{1f600}"];

export function describeSourceContract({ name, fresh, sameSizeRewriteDetected }: SourceContractOptions): void {
  describe(`source contract: ${name}`, () => {
    it("lists one level with a delimiter: folders as prefixes, objects with size, in UTF-8 byte order", async () => {
      const { source, put } = await fresh();
      for (const key of ORDER_KEYS) await put(key, `body of ${key}`);
      const page = await source.list("", { delimiter: "/" });
      expect(page.objects.map((object) => object.key)).toEqual(["B", "a b", "a+b", "a-b", "a\u00e9", "a\uff61", "a\u{1f600}"]);
      expect(page.prefixes).toEqual(["a/"]);
      expect(page.cursor).toBeNull();
      const b = page.objects[0] as ObjectInfo;
      expect(b.size).toBe(Buffer.byteLength("body of B"));
      expect(b.mtimeMs).toBeGreaterThan(Date.now() - 3_600_000);
      const inner = await source.list("a/", { delimiter: "/" });
      expect(inner.objects.map((object) => object.key)).toEqual(["a/b"]);
      expect(inner.prefixes).toEqual(["a/c/"]);
    });

    it("lists every level without a delimiter, filtered by a partial prefix", async () => {
      const { source, put } = await fresh();
      for (const key of ["runs/2026-01/a.jsonl", "runs/2026-01/a.fs.zip", "runs/2026-02/b.jsonl", "runs/2025-12/old.jsonl", "top.txt"]) await put(key, key);
      const all = await listAll(source, "");
      expect(all.keys).toEqual(["runs/2025-12/old.jsonl", "runs/2026-01/a.fs.zip", "runs/2026-01/a.jsonl", "runs/2026-02/b.jsonl", "top.txt"]);
      expect(all.prefixes).toEqual([]);
      expect((await listAll(source, "runs/2026-")).keys).toEqual(["runs/2026-01/a.fs.zip", "runs/2026-01/a.jsonl", "runs/2026-02/b.jsonl"]);
      expect((await listAll(source, "runs/2026-", { delimiter: "/" })).prefixes).toEqual(["runs/2026-01/", "runs/2026-02/"]);
      expect((await source.list("nothing/here/")).objects).toEqual([]);
    });

    it("pages: each page within its limit, together the whole listing once, the last without a cursor", async () => {
      const { source, put } = await fresh();
      const keys = Array.from({ length: 7 }, (_, i) => `f/${String(i).padStart(2, "0")}.jsonl`).concat(["f/sub/x", "f/sub/y", "g"]);
      for (const key of keys) await put(key, "x");
      const flat = await listAll(source, "", { limit: 3 });
      expect(flat.keys).toEqual([...keys].sort());
      expect(flat.pages.length).toBe(Math.ceil(keys.length / 3));
      for (const page of flat.pages.slice(0, -1)) {
        expect(page.objects.length + page.prefixes.length).toBe(3);
        expect(page.cursor).not.toBeNull();
      }
      expect(flat.pages.at(-1)?.cursor).toBeNull();
      const delimited = await listAll(source, "f/", { delimiter: "/", limit: 2 });
      expect(delimited.keys).toEqual(keys.slice(0, 7));
      expect(delimited.prefixes).toEqual(["f/sub/"]);
      for (const page of delimited.pages) expect(page.objects.length + page.prefixes.length).toBeLessThanOrEqual(2);
    });

    it("skips and counts keys the key rules refuse", async () => {
      const { source, put } = await fresh();
      await put("good.jsonl", "x");
      await put("back\\slash.jsonl", "x");
      const page = await source.list("");
      expect(page.objects.map((object) => object.key)).toEqual(["good.jsonl"]);
      expect(page.skipped).toBe(1);
      await expectSourceError(source.stat("back\\slash.jsonl"), "E_SOURCE_INVALID");
    });

    it("stats an object: size and a validator; a missing key or a folder is E_SOURCE_NOT_FOUND naming it", async () => {
      const { source, put } = await fresh();
      await put("runs/a.jsonl", "0123456789");
      const info = await source.stat("runs/a.jsonl");
      expect(info).toMatchObject({ key: "runs/a.jsonl", size: 10 });
      expect(info.etag).toEqual(expect.any(String));
      const missing = await expectSourceError(source.stat("runs/missing.jsonl"), "E_SOURCE_NOT_FOUND");
      expect(missing.message).toContain("runs/missing.jsonl");
      expect(missing.url).toContain("runs/missing.jsonl");
      await expectSourceError(source.stat("runs"), "E_SOURCE_NOT_FOUND");
      for (const bad of ["../etc/passwd", "/abs", "a//b", "a/./b", ""]) await expectSourceError(source.stat(bad), "E_SOURCE_INVALID");
    });

    it("reads ranges: middle, suffix, clamped at the end; past the end is E_SOURCE_INVALID", async () => {
      const { source, put } = await fresh();
      const body = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 251));
      await put("blob.bin", body);
      const middle = await source.read("blob.bin", { offset: 1000, length: 5000 });
      expect(Buffer.from(middle.bytes).equals(body.subarray(1000, 6000))).toBe(true);
      expect(middle).toMatchObject({ offset: 1000, size: body.length });
      expect(middle.etag).toBe((await source.stat("blob.bin")).etag);
      const suffix = await source.read("blob.bin", { suffix: 65536 });
      expect(Buffer.from(suffix.bytes).equals(body.subarray(body.length - 65536))).toBe(true);
      expect(suffix.offset).toBe(body.length - 65536);
      const clamped = await source.read("blob.bin", { offset: body.length - 10, length: 1000 });
      expect(Buffer.from(clamped.bytes).equals(body.subarray(body.length - 10))).toBe(true);
      const whole = await source.read("blob.bin", { suffix: 10 * body.length });
      expect(whole.bytes.byteLength).toBe(body.length);
      const past = await expectSourceError(source.read("blob.bin", { offset: body.length, length: 1 }), "E_SOURCE_INVALID");
      expect(past.data.reason).toBe("range-not-satisfiable");
      await expectSourceError(source.read("blob.bin", { offset: -1, length: 1 }), "E_SOURCE_INVALID");
      await expectSourceError(source.read("missing.bin", { offset: 0, length: 1 }), "E_SOURCE_NOT_FOUND");
    });

    it("reads the suffix of an empty object as no bytes (what a ZIP reader's first read gets)", async () => {
      const { source, put } = await fresh();
      await put("empty.bin", "");
      const read = await source.read("empty.bin", { suffix: 65536 });
      expect(read).toMatchObject({ offset: 0, size: 0 });
      expect(read.bytes.byteLength).toBe(0);
    });

    it("never mixes versions: a read pinned to an old ETag is E_SOURCE_CHANGED; reopening reads the new one", async () => {
      const { source, put } = await fresh();
      const first = "A".repeat(200_000);
      await put("run.jsonl", first);
      const reader = await source.open("run.jsonl");
      expect(text(await reader.read(0, 10))).toBe("AAAAAAAAAA");
      const second = sameSizeRewriteDetected ? "B".repeat(200_000) : "B".repeat(200_001);
      await put("run.jsonl", second);
      const changed = await expectSourceError(reader.read(150_000, 10), "E_SOURCE_CHANGED");
      expect(changed.message).toContain("run.jsonl");
      expect(changed.message).toContain("reopen");
      await expectSourceError(source.read("run.jsonl", { offset: 0, length: 5 }, { etag: reader.etag }), "E_SOURCE_CHANGED");
      const reopened = await source.open("run.jsonl");
      expect(reopened.etag).not.toBe(reader.etag);
      expect(text(await reopened.read(150_000, 10))).toBe("BBBBBBBBBB");
    });

    it("revalidates: null while unchanged, the new info after a change", async () => {
      const { source, put } = await fresh();
      await put("index.json", "[1]");
      const info = await source.stat("index.json");
      expect(await source.revalidate(info)).toBeNull();
      await put("index.json", "[1, 2]");
      const fresher = await source.revalidate(info);
      expect(fresher).toMatchObject({ key: "index.json", size: 6 });
      expect(fresher?.etag).not.toBe(info.etag);
    });

    it("gives random access through the block cache: any range equals the object's bytes", async () => {
      const { source, put } = await fresh();
      const body = Buffer.from(Array.from({ length: 700_000 }, (_, i) => (i * 31 + (i >> 9)) % 256));
      await put("archive.fs.zip", body);
      const reader = await source.open("archive.fs.zip", { tail: 128 * 1024 });
      expect(reader.size).toBe(body.length);
      const before = source.stats.requests;
      expect(Buffer.from(await reader.read(body.length - 22, 22)).equals(body.subarray(body.length - 22))).toBe(true);
      expect(source.stats.requests).toBe(before); // served from the tail read
      let seed = 12345;
      for (let i = 0; i < 40; i++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        const offset = seed % body.length;
        const length = Math.min(body.length - offset, 1 + (seed % 90_000));
        expect(Buffer.from(await reader.read(offset, length)).equals(body.subarray(offset, offset + length)), `${length} bytes at ${offset}`).toBe(true);
      }
      const cached = source.stats.requests;
      await reader.read(1000, 5000);
      expect(source.stats.requests).toBe(cached);
      await expectSourceError(reader.read(body.length - 5, 10), "E_SOURCE_INVALID");
    });

    it("indexes JSONL lines newest first, then every line with its number", async () => {
      const { source, put } = await fresh();
      const lines = Array.from({ length: 500 }, (_, i) => JSON.stringify({ n: i + 1, pad: "x".repeat(i % 97) }));
      lines[200] = "";
      await put("session.jsonl", `${lines.join("\n")}\n`);
      const reader = await source.open("session.jsonl");
      const index = new LineIndex(source, reader, { tailChunkBytes: 4096 });
      const newest = await index.newest(2);
      expect(newest.map((span) => span.fromEnd)).toEqual([1, 2]);
      expect(text(await index.readLine(newest[0]!))).toBe(lines[499]);
      expect(text(await index.readLine(newest[1]!))).toBe(lines[498]);
      await index.build();
      expect(index.lineCount).toBe(500);
      expect(text(await index.readLine(await index.line(1)))).toBe(lines[0]);
      expect((await index.line(201)).byteLength).toBe(0);
      expect(text(await index.readLine(await index.line(377)))).toBe(lines[376]);
      expect((await index.newest(1))[0]).toMatchObject({ lineNumber: 500, fromEnd: 1 });
    });
  });
}
