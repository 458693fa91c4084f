// The viewer on an HTTP folder served by a real nginx (JSON directory listings, ranges,
// ETags): every route answers as on the local folder, and a store's failures (403, 401,
// throttling, an unreachable endpoint, a cut connection, an object rewritten between two
// reads) are answers with a stable code, never a hang or a 500.
import { statSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { chmod, chown, cp, mkdir, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WINK_FIXTURES } from "../fixtures/paths.js";
import { startCutProxy } from "../shared/remote/test-servers/cut-proxy.test-support.js";
import { freePort } from "../shared/remote/test-servers/daemons.test-support.js";
import { type NginxServer, PRIVATE_PASSWORD, PRIVATE_USER, startNginx } from "../shared/remote/test-servers/nginx.test-support.js";
import { writeArchive } from "../shared/archive/index.js";
import { DiskBlockCache, INDEX_FILE_NAME, type Source, renderIndexFile } from "../shared/remote/index.js";
import { startCli, stopClis, waitForUrl } from "./cli.test-support.js";
import type { WinkApp } from "./app.js";
import type { RemotePoller } from "./library/remote-poller.js";
import { failure, parityFolder, routeTour, tourAnswers } from "./remote-parity.test-support.js";
import { cleanUp, get, snapshotLine, tempDir, testApp, writeSession } from "./server.test-support.js";

let nginx: NginxServer;
let served: string;
let namespaces = 0;

beforeAll(async () => {
  served = await tempDir("wink-http-served-");
  nginx = await startNginx(served);
});

afterAll(async () => {
  stopClis();
  await cleanUp();
  await nginx?.stop();
});

/** A new folder served by nginx, and its URL under `location` ("", "private/", "busy/"…). */
async function namespace(location = ""): Promise<{ folder: string; url: string }> {
  const name = `ns${++namespaces}`;
  const folder = path.join(served, name);
  await mkdir(folder);
  return { folder, url: `${nginx.url}${location}${name}/` };
}

/** The source a remote app reads through (its byte counters, its disk cache). */
function sourceOf(app: WinkApp): Source {
  return (app.state.directory.store as unknown as { source: Source }).source;
}

const fastRetries = { attempts: 3, baseDelayMs: 10, maxDelayMs: 50 };

describe("an HTTP folder (nginx) served like a local one", () => {
  it("answers every route of the tour as the local folder does", async () => {
    const { folder, url } = await namespace();
    await cp(await parityFolder({ archives: true }), folder, { recursive: true });
    const local = await testApp({ path: folder, recursive: true });
    const remote = await testApp({ path: url, recursive: true });
    const tour = await routeTour(local);
    expect(tour.length).toBeGreaterThan(100);
    const expected = await tourAnswers(local, tour);
    expect(Object.values(expected).filter((answer) => answer.status === 200).length).toBeGreaterThan(100);
    expect(await tourAnswers(remote, tour)).toEqual(expected);
  });

  it("serves one file named by its URL, with its folder around it", async () => {
    const { folder, url } = await namespace();
    await cp(path.join(WINK_FIXTURES, "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl"), path.join(folder, "a.jsonl"));
    await cp(path.join(WINK_FIXTURES, "db5c4ea2-559a-52c5-8313-741e72978682.jsonl"), path.join(folder, "b.jsonl"));
    const app = await testApp({ path: `${url}a.jsonl` });
    expect(app.state.current?.file).toBe("a.jsonl");
    expect(app.state.displayRoot).toBe(url);
    expect((await get(app, "/api/files")).json().files.map((file: { path: string }) => file.path)).toEqual(["a.jsonl", "b.jsonl"]);
    expect(await failure(testApp({ path: `${url}missing.jsonl` }))).toMatchObject({ code: "E_SESSION_LOAD", message: `Not a session file (.jsonl or .json) or a WINK debug bundle (.zip): ${url}missing.jsonl` });
  });

  it("reads a session file's lines by range after one streamed index, never the whole object again", async () => {
    const { folder, url } = await namespace();
    const lines = Array.from({ length: 40 }, (_, i) => snapshotLine({ sessionId: `s${i}`, slices: [{ type: "app:Note", items: [{ text: "x".repeat(20_000) }] }] }));
    const file = await writeSession(folder, "big.jsonl", lines);
    const app = await testApp({ path: url });
    const source = (app.state.directory.store as unknown as { source: { stats: { bytesReceived: number } } }).source;
    const size = statSync(file).size;
    const afterIndex = source.stats.bytesReceived;
    expect(afterIndex).toBeGreaterThanOrEqual(size);
    expect(afterIndex).toBeLessThan(size + 64 * 1024);
    const raw = await get(app, "/api/raw?file=big.jsonl&line=40");
    expect(raw.statusCode).toBe(200);
    expect(raw.json().tags.session_id).toBe("s39");
    // One line (and the rest of its cache block) more, not the file again.
    expect(source.stats.bytesReceived - afterIndex).toBeLessThan(3 * 64 * 1024);
  });

  it("reopens an object rewritten between two reads: the new version, never a mix of both", async () => {
    const { folder, url } = await namespace();
    await writeSession(folder, "run.jsonl", [snapshotLine({ sessionId: "old-1" }), snapshotLine({ sessionId: "old-2" })]);
    const app = await testApp({ path: url });
    expect((await get(app, "/api/meta?file=run.jsonl&line=2")).json().session_id).toBe("old-2");
    // Another size: nginx's ETag (mtime and size) changes even within the same second.
    await writeSession(folder, "run.jsonl", [snapshotLine({ sessionId: "new-first" }), snapshotLine({ sessionId: "new-second-longer" }), snapshotLine({ sessionId: "new-3" })]);
    const raw = await get(app, "/api/raw?file=run.jsonl&line=2");
    expect(raw.statusCode).toBe(200);
    expect(raw.json().tags.session_id).toBe("new-second-longer");
    expect((await get(app, "/api/entries?file=run.jsonl")).json().map((entry: { session_id: string }) => entry.session_id)).toEqual(["new-first", "new-second-longer", "new-3"]);
  });

  it("lists a folder of thousands of runs in pages and pages and filters the run list", async () => {
    const { folder, url } = await namespace();
    for (let i = 0; i < 1200; i++) await writeFile(path.join(folder, `run-${String(i).padStart(4, "0")}.jsonl`), `${snapshotLine({ sessionId: `r${i}` })}\n`);
    const pages: number[] = [];
    const app = await testApp({ path: url, onListing: (progress) => pages.push(progress.pages) });
    expect(pages.at(-1)).toBe(2);
    const first = (await get(app, "/api/runs?limit=50")).json();
    expect(first).toMatchObject({ total: 1200, matched: 1200, offset: 0, store: { kind: "http", location: url, listing: { pages: 2, objects: 1200, done: true }, health: null } });
    expect(first.runs).toHaveLength(50);
    const filtered = (await get(app, "/api/runs?q=run-11&limit=50&offset=50")).json();
    expect(filtered).toMatchObject({ total: 1200, matched: 100, offset: 50 });
    expect(filtered.runs).toHaveLength(50);
    expect((await get(app, "/api/runs?since=2999-01-01")).json()).toMatchObject({ matched: 0, runs: [] });
    expect((await get(app, "/api/runs?until=yesterday")).json()).toEqual({ detail: "until must be an ISO 8601 date or date-time, got yesterday", code: "EINVAL" });
    // Only what is shown is indexed, in the background: the two pages asked for (and the run
    // opened at start), not the 1,200 objects of the store.
    await app.state.directory.indexSome([]);
    const shown = new Set([...first.runs, ...filtered.runs].map((run: { source: { path: string } }) => run.source.path));
    const indexed = app.state.directory.files().filter((record) => record.index !== null).map((record) => record.path);
    expect(indexed.filter((file) => !shown.has(file) && file !== app.state.current?.file)).toEqual([]);
    expect(indexed.length).toBeGreaterThanOrEqual(100);
  });
});

describe("workspace archives of an HTTP store, by range", () => {
  /** `run.jsonl` with one line and `run.fs.zip` beside it holding `files` (path → text). */
  async function runWithArchive(folder: string, files: Record<string, string | Uint8Array>): Promise<void> {
    await writeSession(folder, "run.jsonl", [snapshotLine({ sessionId: "run" })]);
    await writeArchive(
      path.join(folder, "run.fs.zip"),
      Object.entries(files).map(([file, content]) => {
        const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
        return { path: file, kind: "file" as const, size: bytes.length, mode: 0o644, mtimeMs: Date.parse("2026-11-22T00:00:00Z"), chunks: async function* () { yield bytes; } };
      }),
      { compressionLevel: 0 },
    );
  }

  it("reads the end record and the central directory for the tree, then only the member asked for", async () => {
    const { folder, url } = await namespace();
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < 300; i++) files[`src/module-${i}.bin`] = randomBytes(10_000);
    await runWithArchive(folder, files);
    const size = statSync(path.join(folder, "run.fs.zip")).size;
    const app = await testApp({ path: url });
    const source = (app.state.directory.store as unknown as { source: { stats: { bytesReceived: number } } }).source;
    const before = source.stats.bytesReceived;
    const tree = await get(app, "/api/filesystem/tree?file=run.jsonl");
    expect(tree.json()).toHaveLength(300);
    const forTree = source.stats.bytesReceived - before;
    expect(forTree).toBeLessThan(size / 20);
    const file = await get(app, "/api/filesystem/download?file=run.jsonl&path=src/module-150.bin");
    expect(Buffer.compare(file.rawPayload, Buffer.from(files["src/module-150.bin"] as Uint8Array))).toBe(0);
    // The member and its local header, in at most a block or two of the cache.
    expect(source.stats.bytesReceived - before - forTree).toBeLessThan(3 * 64 * 1024);
  });

  it("reopens an archive rewritten while served: the new version's members, never bytes of both", async () => {
    const { folder, url } = await namespace();
    // a and b lie in different cache blocks, both before the tail read at open: reading each is a request.
    const [gap, padding] = [randomBytes(100_000), randomBytes(300_000)];
    await runWithArchive(folder, { "a.txt": "one\n", "a-gap.bin": gap, "b.txt": "first b\n", "z.bin": padding });
    const app = await testApp({ path: url });
    const file = async (name: string) => (await get(app, `/api/filesystem/file?file=run.jsonl&path=${name}`)).json().content;
    expect(await file("a.txt")).toBe("one\n");
    await runWithArchive(folder, { "a.txt": "one, rewritten\n", "a-gap.bin": gap, "b.txt": "second b, longer\n", "c.txt": "new\n", "z.bin": padding });
    expect(await file("b.txt")).toBe("second b, longer\n");
    // The reopened index has the new file (once the resolved workspace, kept a second, expires).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await get(app, "/api/filesystem/tree?file=run.jsonl")).json().map((entry: { path: string }) => entry.path)).toEqual(["a-gap.bin", "a.txt", "b.txt", "c.txt", "z.bin"]);
    expect(await file("c.txt")).toBe("new\n");
  });

  it("with a cache directory, a later app reads the tree from disk (the store only revalidates), and not after a rewrite", async () => {
    const { folder, url } = await namespace();
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < 3000; i++) files[`src/module-${i}.bin`] = randomBytes(100);
    await runWithArchive(folder, files);
    const cacheDir = path.join(await tempDir("wink-http-cache-"), "blocks");
    const treeOf = async (app: WinkApp): Promise<{ paths: string[]; bytes: number; requests: number }> => {
      const source = sourceOf(app);
      const [bytes, requests] = [source.stats.bytesReceived, source.stats.requests];
      const tree = await get(app, "/api/filesystem/tree?file=run.jsonl");
      expect(tree.statusCode).toBe(200);
      await source.disk?.flush();
      return { paths: tree.json().map((entry: { path: string }) => entry.path), bytes: source.stats.bytesReceived - bytes, requests: source.stats.requests - requests };
    };
    const cold = await treeOf(await testApp({ path: url, remote: { cacheDir } }));
    expect(cold.paths).toHaveLength(3000);
    // The central directory (~200 KB) is more than the 128 KiB tail: blocks were read too.
    expect(cold.bytes).toBeGreaterThan(200_000);
    const warm = await treeOf(await testApp({ path: url, remote: { cacheDir } }));
    expect(warm).toEqual({ paths: cold.paths, bytes: 0, requests: 1 });
    const uncached = await treeOf(await testApp({ path: url }));
    expect(uncached.paths).toEqual(cold.paths);
    expect(uncached.bytes).toBe(cold.bytes);

    // Rewritten (another size, so another nginx ETag): the old blocks are not used.
    delete files["src/module-0.bin"];
    files["src/added.bin"] = randomBytes(150);
    await runWithArchive(folder, files);
    const rewritten = await treeOf(await testApp({ path: url, remote: { cacheDir } }));
    expect(rewritten.paths).toContain("src/added.bin");
    expect(rewritten.paths).not.toContain("src/module-0.bin");
    expect(rewritten.bytes).toBeGreaterThan(200_000);
  });

  it("a truncated archive is refused by the archive policy as on disk, and the session still loads", async () => {
    const { folder, url } = await namespace();
    await runWithArchive(folder, { "a.txt": "content\n" });
    const zip = path.join(folder, "run.fs.zip");
    await writeFile(zip, (await readFile(zip)).subarray(0, 40));
    const local = await testApp({ path: folder });
    const remote = await testApp({ path: url });
    const meta = (await get(remote, "/api/filesystem/meta?file=run.jsonl")).json();
    expect(meta).toEqual((await get(local, "/api/filesystem/meta?file=run.jsonl")).json());
    expect(meta.error).toMatch(/^Archive run\.fs\.zip cannot be opened: /);
    expect((await get(remote, "/api/meta?file=run.jsonl")).statusCode).toBe(200);
  });
});

describe("an HTTP store's failures are answers with a stable code", () => {
  it("refuses to start on a 403, a missing folder, an unreachable endpoint or a store that stays throttled, each with its code", async () => {
    const forbidden = await namespace("forbidden/");
    expect(await failure(testApp({ path: forbidden.url, remote: { retry: fastRetries } }))).toMatchObject({ code: "E_SOURCE_FORBIDDEN" });
    expect(await failure(testApp({ path: `${nginx.url}gone/x/`, remote: { retry: fastRetries } }))).toMatchObject({ code: "E_SOURCE_NOT_FOUND" });
    const port = await freePort();
    const unreachable = await failure(testApp({ path: `http://127.0.0.1:${port}/runs/`, remote: { retry: fastRetries } }));
    expect(unreachable.code).toBe("E_SOURCE_UNREACHABLE");
    expect(unreachable.message).toContain(`http://127.0.0.1:${port}/runs/`);
    const busy = await namespace("busy/");
    expect(await failure(testApp({ path: busy.url, remote: { retry: fastRetries } }))).toMatchObject({ code: "E_SOURCE_THROTTLED" });
  });

  it("reads behind Basic auth with the URL's user and password, and without them says credentials are missing", async () => {
    const { folder, url } = await namespace("private/");
    await writeSession(folder, "run.jsonl", [snapshotLine({ sessionId: "s" })]);
    expect(await failure(testApp({ path: url }))).toMatchObject({ code: "E_SOURCE_CREDENTIALS_MISSING" });
    const withCredentials = url.replace("http://", `http://${PRIVATE_USER}:${PRIVATE_PASSWORD}@`);
    expect(await failure(testApp({ path: withCredentials.replace(PRIVATE_PASSWORD, "wrong") }))).toMatchObject({ code: "E_SOURCE_CREDENTIALS_INVALID" });
    const app = await testApp({ path: withCredentials });
    expect(app.state.displayRoot).toBe(url);
    for (const route of ["/api/runs", "/api/files?wait=1", "/api/run", "/api/meta", "/api/snapshots", "/api/raw"]) {
      const response = await get(app, route);
      expect(response.statusCode, route).toBe(200);
      expect(response.body, route).not.toContain(PRIVATE_PASSWORD);
    }
    expect((await get(app, "/api/runs")).json().store.location).toBe(url);
  });

  it("answers 502 E_SOURCE_TRUNCATED when every connection is cut mid-body, and the answer once a retry gets through", async () => {
    const { folder } = await namespace();
    const lines = Array.from({ length: 8 }, (_, i) => snapshotLine({ sessionId: `s${i}`, slices: [{ type: "app:Note", items: [{ text: "y".repeat(30_000) }] }] }));
    await writeSession(folder, "run.jsonl", lines);
    const name = path.basename(folder);
    // Listings are small and pass; the 240 kB object is cut after 20 kB on every connection.
    const proxy = await startCutProxy({ host: "127.0.0.1", port: nginx.port }, { afterBytes: 20_000 });
    try {
      const app = await testApp({ path: `${proxy.origin}/${name}/`, remote: { retry: fastRetries } }).catch((error: unknown) => error);
      expect(app).toMatchObject({ code: "E_SOURCE_TRUNCATED" });
    } finally {
      await proxy.close();
    }
    // Two cuts, then connections pass: the retries (resuming after the last byte) read it whole.
    const flaky = await startCutProxy({ host: "127.0.0.1", port: nginx.port }, { afterBytes: 20_000, cuts: 2 });
    try {
      const app = await testApp({ path: `${flaky.origin}/${name}/`, remote: { retry: fastRetries } });
      expect((await get(app, "/api/entries?file=run.jsonl")).json()).toHaveLength(8);
    } finally {
      await flaky.close();
    }
  });

  it("answers a file gone between the listing and its first read with the store's 404 and code, not a 500", async () => {
    const { folder, url } = await namespace();
    await writeSession(folder, "a.jsonl", [snapshotLine({ sessionId: "a" })]);
    await writeSession(folder, "b.jsonl", [snapshotLine({ sessionId: "b" })]);
    const app = await testApp({ path: url, remote: { retry: fastRetries } });
    // The file disappears between the listing and its first read: 404 with the store's code, not a 500.
    const other = app.state.current?.file === "a.jsonl" ? "b.jsonl" : "a.jsonl";
    await rm(path.join(folder, other));
    const gone = await get(app, `/api/meta?file=${other}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({ detail: `Not found: ${url}${other} (HTTP 404)`, code: "E_SOURCE_NOT_FOUND" });
  });
});

describe("live reload of an HTTP store (--poll)", () => {
  it("sees files added, changed and removed, reports a failing store as the run list's health, and recovers", async () => {
    const { folder } = await namespace();
    await writeSession(folder, "a.jsonl", [snapshotLine({ sessionId: "a" })]);
    // Through a proxy that passes everything: closing it makes the store unreachable.
    let proxy = await startCutProxy({ host: "127.0.0.1", port: nginx.port }, { afterBytes: 0, cuts: 0 });
    const port = Number(new URL(proxy.origin).port);
    const url = `${proxy.origin}/${path.basename(folder)}/`;
    const app = await testApp({ path: url, watch: true, pollSeconds: 3600, remote: { retry: fastRetries } });
    const poller = app.watcher as RemotePoller;
    try {
      await writeSession(folder, "b.jsonl", [snapshotLine({ sessionId: "b" })]);
      await writeSession(folder, "a.jsonl", [snapshotLine({ sessionId: "a" }), snapshotLine({ sessionId: "a2" })]);
      await poller.check();
      expect((await get(app, "/api/files?wait=1")).json().files.map((file: { path: string; line_count: number }) => [file.path, file.line_count])).toEqual([
        ["a.jsonl", 2],
        ["b.jsonl", 1],
      ]);
      // The store goes away: the poll fails, what was served stays, and the run list says why.
      await proxy.close();
      await poller.check();
      const failing = (await get(app, "/api/runs")).json();
      expect(failing.runs).toHaveLength(2);
      expect(failing.store.health).toMatchObject({ ok: false, code: "E_SOURCE_UNREACHABLE", detail: expect.stringContaining(`Cannot reach the store for ${url}: connection refused`) });
      // A read the store must answer says so with its status and code, not a 500 or a hang.
      const down = await get(app, "/api/raw?file=b.jsonl&line=1");
      expect(down.statusCode).toBe(502);
      expect(down.json().code).toBe("E_SOURCE_UNREACHABLE");
      // It comes back, one file fewer.
      await rm(path.join(folder, "b.jsonl"));
      proxy = await startCutProxy({ host: "127.0.0.1", port: nginx.port }, { afterBytes: 0, cuts: 0, port });
      await poller.check();
      const recovered = (await get(app, "/api/runs")).json();
      expect(recovered.store.health).toMatchObject({ ok: true, code: null });
      expect(recovered.runs.map((run: { source: { path: string } }) => run.source.path)).toEqual(["a.jsonl"]);
    } finally {
      await proxy.close();
    }
  });

  it("revalidates the ETags of indexed files where the listing has none (an index file left stale)", async () => {
    const { folder, url } = await namespace("plain/");
    await writeSession(folder, "run.jsonl", [snapshotLine({ sessionId: "v1" })]);
    await writeFile(path.join(folder, INDEX_FILE_NAME), renderIndexFile([{ key: "run.jsonl", size: statSync(path.join(folder, "run.jsonl")).size, etag: null, mtimeMs: null }]));
    const app = await testApp({ path: url, watch: true, pollSeconds: 3600 });
    expect((await get(app, "/api/meta?file=run.jsonl&line=1")).json().session_id).toBe("v1");
    await writeSession(folder, "run.jsonl", [snapshotLine({ sessionId: "v2-longer" }), snapshotLine({ sessionId: "v2-second" })]);
    await (app.watcher as RemotePoller).check();
    expect(app.state.directory.get("run.jsonl")?.index).toBeNull();
    expect((await get(app, "/api/entries?file=run.jsonl")).json().map((entry: { session_id: string }) => entry.session_id)).toEqual(["v2-longer", "v2-second"]);
  });
});

/** The viewer's URL the CLI prints once it listens (the store's URL is printed before it). */
async function servedUrl(output: () => string): Promise<string> {
  await waitForUrl(output, 60_000);
  for (;;) {
    const match = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/) {3}\(ready/m.exec(output());
    if (match?.[1] !== undefined) return match[1];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a cache directory (--cache-dir) under an HTTP store", () => {
  it("lets a second app answer every route of the tour as the local folder does, reading nothing but listings and revalidations from the store", async () => {
    const { folder, url } = await namespace();
    await cp(await parityFolder({ archives: true }), folder, { recursive: true });
    const cacheDir = path.join(await tempDir("wink-http-cache-"), "blocks");
    const local = await testApp({ path: folder, recursive: true });
    const tour = await routeTour(local);
    const expected = await tourAnswers(local, tour);
    const first = await testApp({ path: url, recursive: true, remote: { cacheDir } });
    expect(await tourAnswers(first, tour)).toEqual(expected);
    await sourceOf(first).disk?.flush();
    const second = await testApp({ path: url, recursive: true, remote: { cacheDir } });
    expect(await tourAnswers(second, tour)).toEqual(expected);
    const [cold, warm] = [sourceOf(first).stats.bytesReceived, sourceOf(second).stats.bytesReceived];
    // Session indexes, lines, archives and bundles all came from disk: the store only listed and revalidated.
    expect(cold).toBeGreaterThan(1_000_000);
    expect(warm).toBe(0);
  });

  it("answers as the store does when every block was replaced by a link to a FIFO or /dev/zero (issue 33)", async () => {
    const { folder, url } = await namespace();
    const cacheDir = path.join(await tempDir("wink-http-cache-"), "blocks");
    await writeSession(folder, "run.jsonl", [snapshotLine({ sessionId: "real-run", slices: [{ type: "app:Note", items: [{ text: "x".repeat(200_000) }] }] })]);
    const rawOf = async (): Promise<{ id: string; bytes: number; app: WinkApp }> => {
      const app = await testApp({ path: url, remote: { cacheDir } });
      const raw = await get(app, "/api/raw?file=run.jsonl");
      await sourceOf(app).disk?.flush();
      return { id: raw.json().tags.session_id, bytes: sourceOf(app).stats.bytesReceived, app };
    };
    expect((await rawOf()).id).toBe("real-run");
    const fifo = path.join(path.dirname(cacheDir), "fifo");
    execFileSync("mkfifo", [fifo]);
    const names = (await readdir(cacheDir)).filter((name) => name.endsWith(".blk"));
    expect(names.length).toBeGreaterThan(1);
    for (const [index, name] of names.entries()) {
      await rm(path.join(cacheDir, name));
      await symlink(index % 2 === 0 ? fifo : "/dev/zero", path.join(cacheDir, name));
    }
    const started = Date.now();
    const again = await rawOf();
    expect(again.id).toBe("real-run");
    expect(again.bytes).toBeGreaterThan(200_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    const disk = sourceOf(again.app).disk;
    expect(disk).toBeInstanceOf(DiskBlockCache);
    expect((disk as DiskBlockCache).stats).toMatchObject({ hits: 0, corrupt: names.length });
  }, 30_000);

  it("indexes a session file from the cache directory only while its ETag stays", async () => {
    const { folder, url } = await namespace();
    const cacheDir = path.join(await tempDir("wink-http-cache-"), "blocks");
    await writeSession(folder, "run.jsonl", ["one", "two"].map((id) => snapshotLine({ sessionId: id, slices: [{ type: "app:Note", items: [{ text: id.repeat(5000) }] }] })));
    const sessions = async (): Promise<{ ids: string[]; bytes: number }> => {
      const app = await testApp({ path: url, remote: { cacheDir } });
      const ids = (await get(app, "/api/entries?file=run.jsonl")).json().map((entry: { session_id: string }) => entry.session_id);
      const raw = await get(app, "/api/raw?file=run.jsonl&line=2");
      expect(raw.json().tags.session_id).toBe(ids[1]);
      await sourceOf(app).disk?.flush();
      return { ids, bytes: sourceOf(app).stats.bytesReceived };
    };
    const cold = await sessions();
    expect(cold.ids).toEqual(["one", "two"]);
    expect(cold.bytes).toBeGreaterThan(30_000);
    expect(await sessions()).toEqual({ ids: ["one", "two"], bytes: 0 });
    // Rewritten (another size: another ETag): indexed again from the store, the new lines read.
    await writeSession(folder, "run.jsonl", ["three", "four", "five"].map((id) => snapshotLine({ sessionId: id })));
    const rewritten = await sessions();
    expect(rewritten.ids).toEqual(["three", "four", "five"]);
    expect(rewritten.bytes).toBeGreaterThan(0);
  });
});

describe("the CLI on an HTTP store", () => {
  it("serves a folder URL with credentials in it, and never prints them", async () => {
    const { folder, url } = await namespace("private/");
    await writeSession(folder, "run.jsonl", [snapshotLine({ sessionId: "private-run" })]);
    const cli = startCli([url.replace("http://", `http://${PRIVATE_USER}:${PRIVATE_PASSWORD}@`), "--port", "0"]);
    const served = await servedUrl(cli.output);
    expect(cli.output()).toContain(`serving ${url} (1 session file)`);
    const meta = await fetch(`${served}api/meta`);
    expect(((await meta.json()) as { session_id: string }).session_id).toBe("private-run");
    const runs = await (await fetch(`${served}api/runs`)).text();
    cli.child.kill("SIGTERM");
    expect(await cli.exit, cli.errors()).toBe(0);
    for (const text of [runs, cli.output(), cli.errors()]) expect(text).not.toContain(PRIVATE_PASSWORD);
  }, 120_000);

  it("exits 4 at once on an unreachable endpoint, with the code and what to check", async () => {
    const port = await freePort();
    const cli = startCli([`http://reader:hunter2@127.0.0.1:${port}/runs/`, "--port", "0"]);
    expect(await cli.exit).toBe(4);
    expect(cli.errors()).toContain(`Cannot reach the store for http://127.0.0.1:${port}/runs/: connection refused`);
    expect(cli.errors()).toContain("[E_SOURCE_UNREACHABLE]\n  Check the URL or --endpoint-url, and the network.");
    expect(cli.errors() + cli.output()).not.toContain("hunter2");
  }, 120_000);

  it("refuses S3 options on other targets and bad --poll values before reading anything", async () => {
    const local = startCli([WINK_FIXTURES, "--endpoint-url", "http://127.0.0.1:1"]);
    expect(await local.exit).toBe(2);
    expect(local.errors()).toContain(`--endpoint-url is for s3:// targets, not ${WINK_FIXTURES}`);
    const poll = startCli([`${nginx.url}x/`, "--poll", "0"]);
    expect(await poll.exit).toBe(2);
    expect(poll.errors()).toContain("--poll must be a whole number of seconds from 1 to 86400, got 0");
  }, 120_000);
});

describe("the CLI's --cache-dir", () => {
  /** Every file under `dir` (relative names), empty for an empty or missing folder. */
  async function filesUnder(dir: string): Promise<string[]> {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
    return entries.filter((entry) => !entry.isDirectory()).map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
  }

  it("keeps private blocks without credentials in the folder it names, and without it writes nothing anywhere", async () => {
    const { folder, url } = await namespace("private/");
    await writeSession(folder, "run.jsonl", [snapshotLine({ sessionId: "cached-run" })]);
    const entries = Array.from({ length: 2000 }, (_, i) => ({ path: `f/${i}.txt`, kind: "file" as const, size: 1, mode: 0o644, mtimeMs: 0, chunks: async function* () { yield new Uint8Array([65]); } }));
    await writeArchive(path.join(folder, "run.fs.zip"), entries, { compressionLevel: 0 });
    const withCredentials = url.replace("http://", `http://${PRIVATE_USER}:${PRIVATE_PASSWORD}@`);
    // HOME, TMPDIR and XDG_CACHE_HOME of their own (tsx's transform cache off), to see what is written.
    const sandbox = await tempDir("wink-cli-sandbox-");
    const env = { ...process.env, HOME: path.join(sandbox, "home"), TMPDIR: path.join(sandbox, "tmp"), XDG_CACHE_HOME: path.join(sandbox, "cache"), TSX_DISABLE_CACHE: "1" };
    for (const dir of [env.HOME, env.TMPDIR, env.XDG_CACHE_HOME]) await mkdir(dir, { recursive: true });
    const cacheDir = path.join(sandbox, "blocks");
    const treeThroughCli = async (args: string[]): Promise<void> => {
      const cli = startCli([withCredentials, "--port", "0", ...args], { env });
      const served = await servedUrl(cli.output);
      expect(((await (await fetch(`${served}api/filesystem/tree?file=run.jsonl`)).json()) as unknown[]).length).toBe(2000);
      cli.child.kill("SIGTERM");
      expect(await cli.exit).toBe(0);
    };
    await treeThroughCli([]);
    expect(await filesUnder(sandbox)).toEqual([]);
    await treeThroughCli(["--cache-dir", cacheDir, "--cache-size", "64"]);
    const cached = await filesUnder(cacheDir);
    expect(cached.length).toBeGreaterThan(2);
    expect((await filesUnder(sandbox)).filter((name) => !name.startsWith("blocks/"))).toEqual([]);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    const secrets = [PRIVATE_PASSWORD, `${PRIVATE_USER}:`, Buffer.from(`${PRIVATE_USER}:${PRIVATE_PASSWORD}`).toString("base64")];
    for (const name of cached) {
      expect(statSync(path.join(cacheDir, name)).mode & 0o777).toBe(0o600);
      const content = (await readFile(path.join(cacheDir, name))).toString("latin1");
      for (const secret of secrets) expect(`${name}\n${content}`).not.toContain(secret);
    }
  }, 180_000);

  it("refuses a folder it may not write (exit 2, naming it) and cache options it cannot use, before reading the store", async () => {
    const parent = await tempDir("wink-cli-cache-");
    const locked = path.join(parent, "locked");
    await mkdir(locked, { mode: 0o500 });
    await chmod(locked, 0o500);
    const port = await freePort();
    const refused = startCli([`http://127.0.0.1:${port}/runs/`, "--port", "0", "--cache-dir", locked], { withoutDacOverride: true });
    expect(await refused.exit).toBe(2);
    // "Listing URL…", then the one error line: the store was never asked.
    const lines = refused.errors().trim().split("\n");
    expect(lines, refused.errors()).toEqual([`Listing http://127.0.0.1:${port}/runs/…`, expect.any(String)]);
    expect(lines[1]).toMatch(new RegExp(`^wink-debug: error: Cache directory ${locked} is not writable \\(EACCES\\)$`));
    const below = startCli([`http://127.0.0.1:${port}/runs/`, "--port", "0", "--cache-dir", path.join(locked, "blocks")], { withoutDacOverride: true });
    expect(await below.exit).toBe(2);
    expect(below.errors()).toContain(`Cache directory ${path.join(locked, "blocks")} cannot be created (EACCES)`);
    const misuses = [
      [[WINK_FIXTURES, "--cache-dir", parent], `--cache-dir is for s3:// and http(s):// targets, not ${WINK_FIXTURES}`],
      [[`${nginx.url}x/`, "--cache-size", "10"], "--cache-size needs --cache-dir"],
      [[`${nginx.url}x/`, "--cache-dir", parent, "--cache-size", "0"], "--cache-size must be a whole number of MiB, at least 1, got 0"],
      [[`${nginx.url}x/`, "--cache-dir", parent, "--cache-size", "1G"], "--cache-size must be a whole number of MiB, at least 1, got 1G"],
    ] as const;
    const clis = misuses.map(([args]) => startCli([...args]));
    for (const [index, [args, message]] of misuses.entries()) {
      const cli = clis[index] as (typeof clis)[number];
      expect(await cli.exit, args.join(" ")).toBe(2);
      expect(cli.errors()).toContain(message);
    }
    expect(await readdir(parent)).toEqual(["locked"]);
  }, 180_000);
});

describe("the CLI's --cache-dir, a folder others could write (issue 33)", () => {
  it("refuses a folder another user owns or that others may write (exit 2, saying how to fix it), before reading the store", async () => {
    const parent = await tempDir("wink-cli-cache-");
    const foreign = path.join(parent, "foreign");
    const open = path.join(parent, "open");
    await mkdir(foreign, { mode: 0o700 });
    await chown(foreign, 65534, 65534);
    await mkdir(open);
    await chmod(open, 0o777);
    const port = await freePort();
    const cases = [
      [foreign, `Cache directory ${foreign} is owned by uid 65534, not by this user (uid 0)`],
      [open, `Cache directory ${open} is writable by its group or others (mode 0777): blocks they could write are not trusted. Fix it with: chmod 700 ${open}`],
    ] as const;
    for (const [dir, message] of cases) {
      const cli = startCli([`http://127.0.0.1:${port}/runs/`, "--port", "0", "--cache-dir", dir]);
      expect(await cli.exit, dir).toBe(2);
      const lines = cli.errors().trim().split("\n");
      // "Listing URL…", then the one error line: the store was never asked.
      expect(lines, cli.errors()).toEqual([`Listing http://127.0.0.1:${port}/runs/…`, expect.any(String)]);
      expect(lines[1]).toContain(`wink-debug: error: ${message}`);
    }
    expect(await readdir(open)).toEqual([]);
  }, 120_000);
});

describe("an S3 endpoint that keeps answering SlowDown (nginx stands in: radosgw has no rate limits)", () => {
  it("fails to start with E_SOURCE_THROTTLED after bounded retries", async () => {
    const error = await failure(testApp({ path: "s3://runs/", remote: { s3: { endpoint: `${nginx.url}s3-slowdown`, credentials: { accessKeyId: "a", secretAccessKey: "b" } }, retry: fastRetries } }));
    expect(error.code).toBe("E_SOURCE_THROTTLED");
    expect(error.message).toContain("gave up after 3 attempts");
  });
});
