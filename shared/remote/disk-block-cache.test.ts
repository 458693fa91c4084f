/**
 * The disk cache under a source's block cache (`--cache-dir`), over a real nginx: a later
 * source (a later process) reads from disk what an earlier one fetched, only for the same
 * ETag; damaged files are dropped and fetched again; the bound holds; files are private and
 * hold no credentials; an unusable folder is refused when opened, naming it.
 */
import { createHash, randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, truncateSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SourceError } from "../errors.js";
import { type DiskBlockCache, openDiskBlockCache } from "./disk-block-cache.node.js";
import { createHttpDriver } from "./http-driver.node.js";
import { Source } from "./source.js";
import { type NginxServer, PRIVATE_PASSWORD, PRIVATE_USER, startNginx } from "./test-servers/nginx.test-support.js";

const KIB = 1024;
const TAIL = 128 * KIB;
let scratch: string;
let served: string;
let nginx: NginxServer;
let objects = 0;
let caches = 0;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), "wink-disk-cache-"));
  served = path.join(scratch, "served");
  mkdirSync(served);
  nginx = await startNginx(served);
});

afterAll(async () => {
  await nginx?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** A new object of `bytes` random bytes; its key. */
function object(bytes: number): { key: string; data: Buffer } {
  const key = `o${++objects}.bin`;
  const data = randomBytes(bytes);
  writeFileSync(path.join(served, key), data);
  return { key, data };
}

function cacheDir(): string {
  return path.join(scratch, "caches", `c${++caches}`, "blocks");
}

/** A source as a new process would have it: an empty memory cache, the disk cache opened afresh. */
async function source(dir: string, options: { maxBytes?: number; url?: string } = {}): Promise<{ source: Source; disk: DiskBlockCache }> {
  const disk = await openDiskBlockCache(dir, options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes });
  return { source: new Source(createHttpDriver({ url: options.url ?? nginx.url }), { disk, retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 20 } }), disk };
}

/** What a ZIP reader does: the tail, then ranges inside the object; each read's SHA-256 (deep-comparing 200 KiB is slow). */
async function readAsAnArchiveWould(from: Source, key: string): Promise<string[]> {
  const reader = await from.open(key, { tail: TAIL });
  const reads = [await reader.read(reader.size - 100, 100), await reader.read(0, 200 * KIB), await reader.read(300 * KIB, 100 * KIB), await reader.read(450 * KIB, 10)];
  return reads.map((bytes) => createHash("sha256").update(bytes).digest("hex"));
}

function digestOf(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function blockFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.endsWith(".blk"));
}

function bytesIn(dir: string): number {
  return blockFiles(dir).reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0);
}

/** A 600 KiB object read once through a new cache folder: the reads' digests and the block files (sorted). */
async function cachedObject(): Promise<{ key: string; dir: string; expected: string[]; files: string[] }> {
  const { key } = object(600 * KIB);
  const dir = cacheDir();
  const first = await source(dir);
  const expected = await readAsAnArchiveWould(first.source, key);
  await first.source.close();
  const files = blockFiles(dir).sort();
  expect(files.length).toBeGreaterThan(5);
  return { key, dir, expected, files };
}

describe("a disk cache under the block cache", () => {
  it("lets a later source read what an earlier one fetched from disk, answering the same", async () => {
    const { key, data } = object(600 * KIB);
    const dir = cacheDir();
    const first = await source(dir);
    const cold = await readAsAnArchiveWould(first.source, key);
    await first.source.close();
    expect(cold).toEqual([data.subarray(-100), data.subarray(0, 200 * KIB), data.subarray(300 * KIB, 400 * KIB), data.subarray(450 * KIB, 450 * KIB + 10)].map(digestOf));
    expect(first.source.stats.bytesReceived).toBeGreaterThan(400 * KIB);
    expect(first.disk.stats.writes).toBeGreaterThan(5);

    const second = await source(dir);
    expect(await readAsAnArchiveWould(second.source, key)).toEqual(cold);
    // Only the tail's revalidation went to the store (a 304, no body).
    expect(second.source.stats.bytesReceived).toBe(0);
    expect(second.source.stats.requests).toBe(1);
    expect(second.disk.stats.hits).toBeGreaterThan(5);
    await second.source.close();
  });

  it("never serves a rewritten object (new ETag) from the old version's blocks", async () => {
    const { key } = object(1000 * KIB);
    const dir = cacheDir();
    const first = await source(dir);
    await readAsAnArchiveWould(first.source, key);
    await first.source.close();

    // A reader holding the old version, then the object is replaced (another size: another nginx ETag).
    const holder = await source(dir);
    const old = await holder.source.open(key, { tail: TAIL });
    const replaced = randomBytes(900 * KIB);
    writeFileSync(path.join(served, key), replaced);
    // Bytes the old version never had cached are asked of the store with its ETag: a change, not new bytes.
    const changed = await old.read(700 * KIB, 10).catch((error: unknown) => error);
    expect(changed).toBeInstanceOf(SourceError);
    expect((changed as SourceError).code).toBe("E_SOURCE_CHANGED");

    const later = await source(dir);
    const reader = await later.source.open(key, { tail: TAIL });
    expect(reader.size).toBe(900 * KIB);
    expect(reader.etag).not.toBe(old.etag);
    expect(Buffer.from(await reader.read(0, 200 * KIB)).equals(replaced.subarray(0, 200 * KIB))).toBe(true);
    expect(Buffer.from(await reader.read(reader.size - 100, 100)).equals(replaced.subarray(-100))).toBe(true);
    expect(later.source.stats.bytesReceived).toBeGreaterThanOrEqual(TAIL + 200 * KIB - 64 * KIB);
    await later.source.close();
  });

  it("drops a damaged, truncated or foreign file and fetches the block again", async () => {
    const { key, dir, expected, files } = await cachedObject();
    const [flipped, cut, swapped, other] = files as [string, string, string, string];
    const bytes = readFileSync(path.join(dir, flipped));
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0xff;
    writeFileSync(path.join(dir, flipped), bytes);
    truncateSync(path.join(dir, cut), 100);
    // A whole, valid file under another block's name: its header names another identity.
    writeFileSync(path.join(dir, swapped), readFileSync(path.join(dir, other)));

    const second = await source(dir);
    expect(await readAsAnArchiveWould(second.source, key)).toEqual(expected);
    expect(second.disk.stats.corrupt).toBe(3);
    expect(second.source.stats.bytesReceived).toBeGreaterThan(0);
    await second.source.close();
    // Stored again, whole: a third reader finds every block on disk.
    const third = await source(dir);
    expect(await readAsAnArchiveWould(third.source, key)).toEqual(expected);
    expect(third.disk.stats.corrupt).toBe(0);
    expect(third.source.stats.bytesReceived).toBe(0);
    await third.source.close();
  });

  it("keeps within its bound as blocks are added and when opened with a smaller one, least recently used first", async () => {
    const { key, data } = object(1024 * KIB);
    const dir = cacheDir();
    const bound = 300 * KIB;
    const bounded = await source(dir, { maxBytes: bound });
    const reader = await bounded.source.open(key);
    for (let offset = 0; offset < data.byteLength; offset += 64 * KIB) {
      expect(Buffer.from(await reader.read(offset, 64 * KIB)).equals(data.subarray(offset, offset + 64 * KIB))).toBe(true);
      await bounded.disk.flush();
      expect(bytesIn(dir)).toBeLessThanOrEqual(bound);
    }
    expect(bounded.disk.stats.evicted).toBeGreaterThan(0);
    expect(bounded.disk.stats.bytes).toBe(bytesIn(dir));
    await bounded.source.close();

    // The last block read is the most recently used: it survives a smaller bound, older ones do not.
    const newest = blockFiles(dir).sort((a, b) => statSync(path.join(dir, a)).mtimeMs - statSync(path.join(dir, b)).mtimeMs);
    const old = new Date(Date.now() - 60_000);
    newest.slice(0, -1).forEach((name, index) => utimesSync(path.join(dir, name), old, new Date(old.getTime() + index * 1000)));
    const smaller = await openDiskBlockCache(dir, { maxBytes: 100 * KIB });
    expect(bytesIn(dir)).toBeLessThanOrEqual(100 * KIB);
    expect(blockFiles(dir)).toContain(newest.at(-1));
    expect(smaller.stats.evicted).toBe(newest.length - blockFiles(dir).length);
  });

  it("counts blocks another process wrote after it opened the folder against its bound once it finds them", async () => {
    const { key, data } = object(640 * KIB);
    const dir = cacheDir();
    const bounded = await source(dir, { maxBytes: 200 * KIB });
    const writer = await source(dir);
    await (await writer.source.open(key)).read(0, data.byteLength);
    await writer.source.close();
    expect(bytesIn(dir)).toBeGreaterThan(600 * KIB);
    expect(digestOf(await (await bounded.source.open(key)).read(0, data.byteLength))).toBe(digestOf(data));
    await bounded.source.close();
    expect(bounded.source.stats.bytesReceived).toBe(0);
    expect(bytesIn(dir)).toBeLessThanOrEqual(200 * KIB);
  });

  it("creates its folder 0700 and its files 0600, and writes no credential anywhere in it", async () => {
    const { key } = object(300 * KIB);
    const dir = cacheDir();
    const url = new URL(`private/`, nginx.url);
    url.username = PRIVATE_USER;
    url.password = PRIVATE_PASSWORD;
    const first = await source(dir, { url: url.href });
    await readAsAnArchiveWould(first.source, key).catch(() => undefined);
    const reader = await first.source.open(key, { tail: TAIL });
    await reader.read(0, 150 * KIB);
    await first.source.close();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path.dirname(dir)).mode & 0o777).toBe(0o700);
    const names = readdirSync(dir);
    expect(names.length).toBeGreaterThan(2);
    const secrets = [PRIVATE_PASSWORD, `${PRIVATE_USER}:`, Buffer.from(`${PRIVATE_USER}:${PRIVATE_PASSWORD}`).toString("base64"), "private/", key];
    for (const name of names) {
      expect(statSync(path.join(dir, name)).mode & 0o777).toBe(0o600);
      const content = readFileSync(path.join(dir, name)).toString("latin1");
      for (const secret of secrets) {
        expect(name).not.toContain(secret);
        expect(content).not.toContain(secret);
      }
    }
  });

  it("removes temp files a crashed writer left, and leaves a live writer's", async () => {
    const dir = cacheDir();
    await openDiskBlockCache(dir);
    writeFileSync(path.join(dir, ".tmp-crashed"), "torn");
    const old = new Date(Date.now() - 3600_000);
    utimesSync(path.join(dir, ".tmp-crashed"), old, old);
    writeFileSync(path.join(dir, ".tmp-writing"), "in progress");
    await openDiskBlockCache(dir);
    expect(readdirSync(dir).sort()).toEqual([".tmp-writing"]);
  });

  it("is shared by sources writing at once: every file is whole", async () => {
    const { key, data } = object(800 * KIB);
    const dir = cacheDir();
    const writers = await Promise.all([source(dir), source(dir), source(dir)]);
    await Promise.all(writers.map(async ({ source: from }) => (await from.open(key)).read(0, data.byteLength)));
    await Promise.all(writers.map(({ source: from }) => from.close()));
    const reader = await source(dir);
    expect(Buffer.from(await (await reader.source.open(key)).read(0, data.byteLength)).equals(data)).toBe(true);
    expect(reader.disk.stats.corrupt).toBe(0);
    // The stat of `open`; every block came from disk.
    expect(reader.source.stats.bytesReceived).toBe(0);
    expect(readdirSync(dir).filter((name) => !name.endsWith(".blk"))).toEqual([]);
  });

  it("refuses a folder it cannot create or write, naming it", async () => {
    const file = path.join(scratch, "a-file");
    writeFileSync(file, "");
    // (A folder without write permission is the CLI test's: this process is root.)
    for (const dir of [file, path.join(file, "cache")]) {
      const error = await openDiskBlockCache(dir).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: "ENOTDIR" });
      expect((error as Error).message).toContain(`Cache directory ${dir} `);
    }
  });

  it("counts a block that is a symlink (to a FIFO, to /dev/zero), a FIFO or a file of another size than its header says as a miss, and stores it again (issue 33)", async () => {
    const { key, dir, expected, files } = await cachedObject();
    const fifo = path.join(scratch, `fifo-${caches}`);
    execFileSync("mkfifo", [fifo]);
    const [toFifo, toZero, isFifo, longer, ...too] = files as [string, string, string, string, ...string[]];
    for (const name of [toFifo, toZero, isFifo]) unlinkSync(path.join(dir, name));
    symlinkSync(fifo, path.join(dir, toFifo));
    symlinkSync("/dev/zero", path.join(dir, toZero));
    execFileSync("mkfifo", [path.join(dir, isFifo)]);
    // A whole block with bytes appended: its header and checksum hold, its size does not.
    writeFileSync(path.join(dir, longer), Buffer.concat([readFileSync(path.join(dir, longer)), Buffer.alloc(10)]));
    // The rest are links to a real, valid block file elsewhere: not read through either.
    const outside = path.join(scratch, `outside-${caches}`);
    mkdirSync(outside);
    for (const name of too) {
      writeFileSync(path.join(outside, name), readFileSync(path.join(dir, name)));
      unlinkSync(path.join(dir, name));
      symlinkSync(path.join(outside, name), path.join(dir, name));
    }

    const second = await source(dir);
    const started = Date.now();
    expect(await readAsAnArchiveWould(second.source, key)).toEqual(expected);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(second.disk.stats.hits).toBe(0);
    expect(second.disk.stats.corrupt).toBe(files.length);
    await second.source.close();
    // Replaced by regular files of its own; what the links pointed to is untouched.
    for (const name of files) expect(lstatSync(path.join(dir, name)).isFile()).toBe(true);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    for (const name of too) expect(readdirSync(outside)).toContain(name);
    const third = await source(dir);
    expect(await readAsAnArchiveWould(third.source, key)).toEqual(expected);
    expect(third.source.stats.bytesReceived).toBe(0);
    expect(third.disk.stats.corrupt).toBe(0);
    await third.source.close();
  }, 20_000);

  it("refuses, as ssh does, a folder another user owns or that others may write, saying how to fix it (issue 33)", async () => {
    const foreign = cacheDir();
    mkdirSync(foreign, { recursive: true, mode: 0o700 });
    chownSync(foreign, 65534, 65534);
    const notOwned = await openDiskBlockCache(foreign).catch((caught: unknown) => caught);
    expect(notOwned).toMatchObject({ code: "EACCES" });
    expect((notOwned as Error).message).toContain(`Cache directory ${foreign} is owned by uid 65534, not by this user (uid 0)`);

    const open = cacheDir();
    mkdirSync(open, { recursive: true });
    for (const mode of [0o777, 0o770, 0o702]) {
      chmodSync(open, mode);
      const writable = await openDiskBlockCache(open).catch((caught: unknown) => caught);
      expect(writable).toMatchObject({ code: "EACCES" });
      expect((writable as Error).message).toContain(`Cache directory ${open} is writable by its group or others (mode 0${mode.toString(8)})`);
      expect((writable as Error).message).toContain(`chmod 700 ${open}`);
    }
    expect(readdirSync(open)).toEqual([]);
    chmodSync(open, 0o755);
    await expect(openDiskBlockCache(open)).resolves.toBeDefined();

    // Above it: a folder others may write (not sticky) or another user's could swap it.
    const below = path.join(scratch, `shared-${caches}`, "blocks");
    mkdirSync(below, { recursive: true, mode: 0o700 });
    chmodSync(path.dirname(below), 0o777);
    await expect(openDiskBlockCache(below)).rejects.toThrow(`is inside ${path.dirname(below)}, writable by its group or others (mode 0777)`);
    chmodSync(path.dirname(below), 0o1777);
    await expect(openDiskBlockCache(below)).resolves.toBeDefined();
    chownSync(path.dirname(below), 65534, 65534);
    await expect(openDiskBlockCache(below)).rejects.toThrow(`is inside ${path.dirname(below)}, owned by uid 65534`);
    // Through a link: the folder it leads to is the one checked, and named.
    const link = path.join(scratch, `link-${caches}`);
    symlinkSync(foreign, link);
    await expect(openDiskBlockCache(link)).rejects.toThrow(`Cache directory ${link} (${foreign}) is owned by uid 65534`);
  });

  it("never serves a block forged in a folder others may write (issue 33)", async () => {
    const { key, data } = object(300 * KIB);
    const dir = cacheDir();
    const first = await source(dir);
    await (await first.source.open(key)).read(0, data.byteLength);
    await first.source.close();
    // Another user rewrites a block with a recomputed length and SHA-256: no secret is needed.
    const [name] = blockFiles(dir) as [string];
    const file = readFileSync(path.join(dir, name));
    const forged = Buffer.from(file.subarray(72)).fill(0x41);
    const header = Buffer.from(file.subarray(0, 72));
    createHash("sha256").update(forged).digest().copy(header, 40);
    writeFileSync(path.join(dir, name), Buffer.concat([header, forged]));
    expect(await openDiskBlockCache(dir).then((disk) => disk.stats.files)).toBeGreaterThan(0);
    chmodSync(dir, 0o777);
    await expect(openDiskBlockCache(dir)).rejects.toMatchObject({ code: "EACCES" });
  });
});
