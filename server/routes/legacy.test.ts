// WINK's viewer API (wink-viewer.md, "Tested behaviours of A"), over real files.
import { execFileSync } from "node:child_process";
import { mkdir, symlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FIXTURES, cleanUp, copyFixture, get, post, snapshotLine, tempDir, testApp, writeSession } from "../server.test-support.js";

afterEach(cleanUp);

const PLAN = "weakincentives.contrib.tools.planning:Plan";
const NOTE = "__main__:ReviewNote";

async function twoSessionDir(): Promise<string> {
  const dir = await tempDir();
  await writeSession(dir, "run.jsonl", [
    snapshotLine({ sessionId: "first", tags: { custom: "yes" }, slices: [{ type: NOTE, items: [{ text: "one" }, { text: "two" }, { text: "three" }, { text: "four" }] }] }),
    snapshotLine({ sessionId: "second", slices: [{ type: NOTE, items: [{ text: "second-a" }] }] }),
  ]);
  return dir;
}

describe("GET /api/meta, /api/entries, /api/raw", () => {
  it("loads a written snapshot: version, tags, session id, line 1, slice counts", async () => {
    const app = await testApp({ path: await twoSessionDir() });
    const response = await get(app, "/api/meta");
    expect(response.statusCode).toBe(200);
    const meta = response.json();
    expect(meta).toMatchObject({ version: "1", session_id: "first", line_number: 1, path: "run.jsonl", validation_error: null });
    expect(meta.tags).toEqual({ custom: "yes", session_id: "first" });
    expect(meta.slices).toEqual([{ slice_type: NOTE, item_type: NOTE, display_name: "ReviewNote", item_display_name: "ReviewNote", count: 4, kind: "state" }]);
  });

  it("answers a page of the entries when asked (offset, limit), the total and the next page in its headers (issue 29, item 5)", async () => {
    // 12,000 lines: past the count whose answer is written from the index's columns as it is sent.
    const dir = await tempDir();
    const count = 12_000;
    await writeSession(dir, "big.jsonl", Array.from({ length: count }, (_, i) => snapshotLine({ sessionId: `s-${i % 7}`, slices: [{ type: NOTE, items: [{ n: i }] }] })));
    await writeSession(dir, "run.jsonl", [0, 1, 2, 3, 4].map((i) => snapshotLine({ sessionId: `t-${i}`, slices: [{ type: NOTE, items: [{ n: i }] }] })));
    const app = await testApp({ path: dir });
    for (const [file, total, limit] of [["run.jsonl", 5, 2], ["big.jsonl", count, 10_500]] as const) {
      const whole = await get(app, `/api/entries?file=${file}&line=2`);
      expect(whole.headers["x-total-count"]).toBe(String(total));
      expect(whole.headers.link).toBeUndefined();
      const pages: unknown[] = [];
      let next: string | undefined = `/api/entries?file=${file}&line=2&limit=${limit}`;
      while (next !== undefined) {
        const page = await get(app, next);
        expect(page.statusCode).toBe(200);
        expect(page.headers["x-total-count"]).toBe(String(total));
        const answer = page.json() as unknown[];
        expect(answer.length).toBeLessThanOrEqual(limit);
        pages.push(...answer);
        const link = page.headers.link as string | undefined;
        next = link === undefined ? undefined : `/api/entries${/^<([^>]*)>; rel="next"$/.exec(link)?.[1] ?? "?unparsed"}`;
      }
      expect(pages).toEqual(whole.json());
    }
    const page = (await get(app, "/api/entries?file=big.jsonl&offset=11998&limit=5")).json();
    expect(page.map((entry: { line_number: number }) => entry.line_number)).toEqual([11999, 12000]);
    expect((await get(app, "/api/entries?file=big.jsonl&offset=20000")).json()).toEqual([]);
    expect((await get(app, "/api/entries?file=run.jsonl&limit=0")).json()).toEqual([]);
    expect((await get(app, "/api/entries?file=run.jsonl&offset=-1")).statusCode).toBe(400);
  });

  it("lists every line in file order with only the selected one marked", async () => {
    const app = await testApp({ path: await twoSessionDir() });
    const entries = (await get(app, "/api/entries")).json();
    expect(entries.map((entry: { session_id: string }) => entry.session_id)).toEqual(["first", "second"]);
    expect(entries.map((entry: { selected: boolean }) => entry.selected)).toEqual([true, false]);
    expect(entries[1]).toMatchObject({ name: "second (line 2)", line_number: 2, path: "run.jsonl" });
  });

  it("marks only the selected line when a session id appears on two lines (WINK marked both)", async () => {
    const dir = await tempDir();
    await writeSession(dir, "dup.jsonl", [snapshotLine({ sessionId: "same" }), snapshotLine({ sessionId: "same", createdAt: "2026-11-22T02:00:00+00:00" })]);
    const app = await testApp({ path: dir });
    expect((await post(app, "/api/select", { line_number: 2 })).statusCode).toBe(200);
    const entries = (await get(app, "/api/entries")).json();
    expect(entries.map((entry: { selected: boolean }) => entry.selected)).toEqual([false, true]);
  });

  it("returns the raw line with __type__ kept", async () => {
    const app = await testApp({ path: await twoSessionDir() });
    const raw = (await get(app, "/api/raw")).json();
    expect(raw.version).toBe("1");
    expect(raw.slices[0].items[0].__type__).toBe(NOTE);
  });
});

describe("POST /api/select", () => {
  it("selects by session id, then slices and raw follow the selection", async () => {
    const app = await testApp({ path: await twoSessionDir() });
    const selected = await post(app, "/api/select", { session_id: "second" });
    expect(selected.statusCode).toBe(200);
    expect(selected.json()).toMatchObject({ session_id: "second", line_number: 2 });
    const slice = (await get(app, `/api/slices/${encodeURIComponent(NOTE)}`)).json();
    expect(slice.items).toEqual([{ __type__: NOTE, text: "second-a" }]);
    expect((await get(app, "/api/raw")).json().tags.session_id).toBe("second");
  });

  it("answers WINK's 400 messages for missing, mistyped and unknown selectors", async () => {
    const app = await testApp({ path: await twoSessionDir() });
    const cases: [unknown, string][] = [
      [{}, "session_id or line_number is required"],
      [{ line_number: "one" }, "line_number must be an integer"],
      [{ line_number: true }, "line_number must be an integer"],
      [{ session_id: 123 }, "session_id must be a string"],
      [{ session_id: "missing" }, "Unknown session_id: missing"],
      [{ line_number: 99 }, "Unknown line_number: 99"],
    ];
    for (const [body, detail] of cases) {
      const response = await post(app, "/api/select", body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().detail).toBe(detail);
    }
    expect((await post(app, "/api/select", { line_number: 1 })).statusCode).toBe(200);
  });

  it("prefers session_id when both are given", async () => {
    const app = await testApp({ path: await twoSessionDir() });
    const response = await post(app, "/api/select", { session_id: "second", line_number: 1 });
    expect(response.json().line_number).toBe(2);
  });
});

describe("GET /api/slices/:slice_type", () => {
  it("paginates with offset and limit, and reports the total", async () => {
    const app = await testApp({ path: await twoSessionDir() });
    const url = `/api/slices/${encodeURIComponent(NOTE)}`;
    const all = (await get(app, url)).json();
    expect(all.items.map((item: { text: string }) => item.text)).toEqual(["one", "two", "three", "four"]);
    const page = (await get(app, `${url}?offset=1&limit=2`)).json();
    expect(page.items.map((item: { text: string }) => item.text)).toEqual(["two", "three"]);
    expect(page).toMatchObject({ offset: 1, limit: 2, total: 4 });
    expect((await get(app, `${url}?offset=3`)).json().items).toHaveLength(1);
    expect((await get(app, `${url}?offset=10`)).json().items).toEqual([]);
    expect((await get(app, `${url}?limit=0`)).json().items).toEqual([]);
  });

  it("refuses negative or non-integer offsets and limits", async () => {
    const app = await testApp({ path: await twoSessionDir() });
    for (const query of ["offset=-1", "limit=-2", "offset=abc", "limit=1.5"]) {
      const response = await get(app, `/api/slices/${encodeURIComponent(NOTE)}?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(typeof response.json().detail).toBe("string");
    }
  });

  it("answers 404 'Unknown slice type' for a missing slice", async () => {
    const app = await testApp({ path: await twoSessionDir() });
    const response = await get(app, "/api/slices/missing");
    expect(response.statusCode).toBe(404);
    expect(response.json().detail).toContain("Unknown slice type: missing");
  });

  it("wraps markdown strings, nested ones included, and leaves pre-rendered wrappers and numbers alone", async () => {
    const dir = await tempDir();
    const prerendered = { __markdown__: { text: "kept", html: "<p>kept</p>" } };
    await writeSession(dir, "md.jsonl", [
      snapshotLine({
        sessionId: "md",
        slices: [{ type: NOTE, items: [{ body: "# Heading\n\nSome **bold** markdown content.", content: ["* bullet point with detail", prerendered, 7] }] }],
      }),
    ]);
    const app = await testApp({ path: dir });
    const [item] = (await get(app, `/api/slices/${encodeURIComponent(NOTE)}`)).json().items;
    expect(item.body.__markdown__.text).toBe("# Heading\n\nSome **bold** markdown content.");
    expect(item.body.__markdown__.html).toContain("<h1");
    expect(item.body.__markdown__.html).toContain("<strong>bold</strong>");
    expect(item.content[0].__markdown__.html.startsWith("<ul>")).toBe(true);
    expect(item.content[1]).toEqual(prerendered);
    expect(item.content[2]).toBe(7);
    const plain = (await get(app, `/api/slices/${encodeURIComponent(NOTE)}?markdown=0`)).json().items[0];
    expect(plain.body).toBe("# Heading\n\nSome **bold** markdown content.");
  });

  it("takes an explicit selector so two tabs never interfere", async () => {
    const app = await testApp({ path: await twoSessionDir() });
    await post(app, "/api/select", { session_id: "first" });
    const other = (await get(app, `/api/slices/${encodeURIComponent(NOTE)}?file=run.jsonl&line=2`)).json();
    expect(other.items).toHaveLength(1);
    expect((await get(app, "/api/meta?session=second")).json().line_number).toBe(2);
    expect((await get(app, "/api/meta")).json().line_number).toBe(1);
    expect((await get(app, "/api/meta?file=run.jsonl&line=7")).statusCode).toBe(404);
    expect((await get(app, "/api/meta?file=nope.jsonl")).statusCode).toBe(404);
  });
});

describe("POST /api/reload", () => {
  it("replaces the snapshot after the file changes, and keeps the old state when it no longer loads", async () => {
    const dir = await tempDir();
    const file = await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "old", slices: [{ type: PLAN, items: [{ objective: "a" }] }] })]);
    const app = await testApp({ path: dir });
    await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "new", slices: [{ type: PLAN, items: [{ objective: "b" }, { objective: "c" }] }, { type: NOTE, items: [{ text: "x" }] }] })]);
    const reloaded = await post(app, "/api/reload");
    expect(reloaded.statusCode).toBe(200);
    expect(reloaded.json()).toMatchObject({ session_id: "new", line_number: 1 });
    expect(reloaded.json().slices).toHaveLength(2);
    expect((await get(app, `/api/slices/${encodeURIComponent(PLAN)}`)).json().items).toHaveLength(2);

    await writeFile(file, "not-json\n");
    const failed = await post(app, "/api/reload");
    expect(failed.statusCode).toBe(400);
    expect(failed.json().detail).toContain("Reload failed");
    const meta = (await get(app, "/api/meta")).json();
    expect(meta.session_id).toBe("new");
    expect(meta.slices).toHaveLength(2);
  });

  it("accepts a POST with an empty JSON body or no body, and refuses other media types", async () => {
    const app = await testApp({ path: await twoSessionDir() });
    const empty = await app.app.inject({ method: "POST", url: "/api/reload", headers: { host: "localhost", "content-type": "application/json" }, payload: "" });
    expect(empty.statusCode).toBe(200);
    expect((await post(app, "/api/reload")).statusCode).toBe(200);
    const text = await app.app.inject({ method: "POST", url: "/api/select", headers: { host: "localhost", "content-type": "text/plain" }, payload: '{"line_number": 2}' });
    expect(text.statusCode).toBe(415);
    const form = await app.app.inject({ method: "POST", url: "/api/select", headers: { host: "localhost", "content-type": "application/x-www-form-urlencoded" }, payload: "line_number=2" });
    expect(form.statusCode).toBe(415);
    const polluting = await app.app.inject({ method: "POST", url: "/api/select", headers: { host: "localhost", "content-type": "application/json" }, payload: '{"__proto__": {"x": 1}, "line_number": 2}' });
    expect(polluting.statusCode).toBe(400);
    expect((await get(app, "/api/meta")).json().line_number).toBe(1);
  });

  it("keeps the selected session when it still exists, else falls back to the first line", async () => {
    const dir = await tempDir();
    await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "a" }), snapshotLine({ sessionId: "b" })]);
    const app = await testApp({ path: dir });
    await post(app, "/api/select", { session_id: "b" });
    await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "c" }), snapshotLine({ sessionId: "b" })]);
    expect((await post(app, "/api/reload")).json()).toMatchObject({ session_id: "b", line_number: 2 });
    await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "d" })]);
    expect((await post(app, "/api/reload")).json()).toMatchObject({ session_id: "d", line_number: 1 });
  });
});

describe("GET /api/snapshots and POST /api/switch", () => {
  it("lists files newest first and switches between them", async () => {
    const dir = await tempDir();
    const one = await writeSession(dir, "one.jsonl", [snapshotLine({ sessionId: "one" })]);
    const two = await writeSession(dir, "two.jsonl", [snapshotLine({ sessionId: "two" })]);
    await utimes(one, new Date("2026-01-01T00:00:00Z"), new Date("2026-01-01T00:00:00Z"));
    await utimes(two, new Date("2026-01-02T00:00:00Z"), new Date("2026-01-02T00:00:00Z"));
    const app = await testApp({ path: dir });
    const listed = (await get(app, "/api/snapshots")).json();
    // ctime is "now" for both; equal newest times fall back to the path order.
    expect(listed.map((file: { name: string }) => file.name).sort()).toEqual(["one.jsonl", "two.jsonl"]);
    expect(Object.keys(listed[0]).sort()).toEqual(["created_at", "name", "path"]);
    const switched = await post(app, "/api/switch", { path: two });
    expect(switched.statusCode).toBe(200);
    expect(switched.json()).toMatchObject({ path: "two.jsonl", session_id: "two" });
    expect((await get(app, "/api/meta")).json().session_id).toBe("two");
    expect((await post(app, "/api/switch", { path: "one.jsonl" })).json().session_id).toBe("one");
  });

  it("orders by modification time when change times differ", async () => {
    const dir = await tempDir();
    await writeSession(dir, "one.jsonl", [snapshotLine({ sessionId: "one" })]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await writeSession(dir, "two.jsonl", [snapshotLine({ sessionId: "two" })]);
    const app = await testApp({ path: dir });
    expect((await get(app, "/api/snapshots")).json().map((file: { name: string }) => file.name)).toEqual(["two.jsonl", "one.jsonl"]);
    // A directory argument opens its newest file.
    expect((await get(app, "/api/meta")).json().session_id).toBe("two");
  });

  it("refuses paths outside the root and mistyped fields with WINK's messages", async () => {
    const dir = await twoSessionDir();
    const outside = await tempDir();
    const foreign = await writeSession(outside, "foreign.jsonl", [snapshotLine({ sessionId: "foreign" })]);
    const app = await testApp({ path: dir });
    expect((await post(app, "/api/switch", { path: 123 })).json()).toEqual({ detail: "path is required", code: "WD_ERR_BAD_REQUEST" });
    const escaped = await post(app, "/api/switch", { path: foreign });
    expect(escaped.statusCode).toBe(400);
    expect(escaped.json().detail).toContain("Snapshot must live under");
    expect((await post(app, "/api/switch", { path: `../${path.basename(outside)}/foreign.jsonl` })).statusCode).toBe(400);
    expect((await post(app, "/api/switch", { path: "run.jsonl", session_id: 123 })).statusCode).toBe(400);
    expect((await post(app, "/api/switch", { path: "run.jsonl", line_number: "one" })).statusCode).toBe(400);
    expect((await get(app, "/api/meta")).json().session_id).toBe("first");
  });

  it("never reads through a symlink, even one inside the root", async () => {
    const dir = await twoSessionDir();
    const outside = await tempDir();
    await writeSession(outside, "secret.jsonl", [snapshotLine({ sessionId: "wink-canary-secret" })]);
    await symlink(path.join(outside, "secret.jsonl"), path.join(dir, "link.jsonl"));
    const app = await testApp({ path: dir });
    expect((await get(app, "/api/snapshots")).json().map((file: { name: string }) => file.name)).not.toContain("link.jsonl");
    const response = await post(app, "/api/switch", { path: "link.jsonl" });
    expect(response.statusCode).toBe(400);
    expect(response.body).not.toContain("wink-canary-secret");
  });

  it("skips broken symlinks in the listing", async () => {
    const dir = await twoSessionDir();
    await symlink(path.join(dir, "missing.jsonl"), path.join(dir, "broken.jsonl"));
    const app = await testApp({ path: dir });
    expect((await get(app, "/api/snapshots")).json().map((file: { name: string }) => file.name)).toEqual(["run.jsonl"]);
  });
});

describe("loading", () => {
  it("reports a file with no loadable line, and loads the rest of the directory", async () => {
    const dir = await copyFixture(path.join(FIXTURES, "invalid-for-wink-debug"));
    const app = await testApp({ path: path.join(dir, "invalid-for-wink-debug") });
    const meta = (await get(app, "/api/meta")).json();
    expect(meta.session_id).toBe("25b995b7-9e4d-5d55-9ddb-a076e372c5bf");
    const [secret] = meta.slices;
    expect(secret.display_name).toBe("Secret");
    const items = (await get(app, `/api/slices/${encodeURIComponent(secret.slice_type)}`)).json().items;
    expect(items).toHaveLength(1);
    const files = (await get(app, "/api/files?wait=1")).json().files;
    const missing = files.find((file: { name: string }) => file.name === "missing-session-id.jsonl");
    expect(missing.errors).toEqual([expect.objectContaining({ line_number: 1, kind: "envelope" })]);
    expect(missing.errors[0].reason).toContain("session_id");
    expect(missing.snapshot_count).toBe(0);
  });

  it("ignores blank lines but counts them in line numbers", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "blank.jsonl"), `\n\n${snapshotLine({ sessionId: "a" })}\n\n${snapshotLine({ sessionId: "b" })}\n\n`);
    const app = await testApp({ path: dir });
    const entries = (await get(app, "/api/entries")).json();
    expect(entries.map((entry: { session_id: string; line_number: number }) => [entry.session_id, entry.line_number])).toEqual([
      ["a", 3],
      ["b", 5],
    ]);
  });

  it("keeps other lines when one line is broken, and says which", async () => {
    const dir = await tempDir();
    await writeSession(dir, "mixed.jsonl", [snapshotLine({ sessionId: "a" }), "{", snapshotLine({ sessionId: "c" })]);
    const app = await testApp({ path: dir });
    expect((await get(app, "/api/entries")).json()).toHaveLength(2);
    const [file] = (await get(app, "/api/files?wait=1")).json().files;
    expect(file.errors).toEqual([expect.objectContaining({ line_number: 2, kind: "json" })]);
  });

  it("serves values JSON cannot hold: NaN, Infinity, integers beyond 2^53, lone surrogates", async () => {
    const dir = await tempDir();
    const line = snapshotLine({ sessionId: "odd", slices: [{ type: NOTE, items: [{ nan: 0, inf: 0, big: 0, lone: "x" }] }] })
      .replace('"nan": 0', '"nan": NaN')
      .replace('"inf": 0', '"inf": -Infinity')
      .replace('"big": 0', '"big": 18446744073709551617')
      .replace('"lone": "x"', '"lone": "\\udc80"');
    await writeSession(dir, "odd.jsonl", [line]);
    const app = await testApp({ path: dir });
    const slice = await get(app, `/api/slices/${encodeURIComponent(NOTE)}`);
    expect(slice.statusCode).toBe(200);
    expect(slice.body).toContain('"big":18446744073709551617');
    expect(slice.body).toContain('"lone":"\\udc80"');
    const [item] = slice.json().items;
    expect(item.nan).toEqual({ __float__: "NaN" });
    expect(item.inf).toEqual({ __float__: "-Infinity" });
    const raw = await get(app, "/api/raw");
    expect(raw.statusCode).toBe(200);
    expect(raw.body).toContain("18446744073709551617");
  });

  it("answers / with an HTML page", async () => {
    const app = await testApp({ path: await twoSessionDir() });
    const response = await get(app, "/");
    expect(response.statusCode).toBe(200);
    expect(response.body.toLowerCase()).toContain("<!doctype html>");
  });
});

describe("directories and big lines", () => {
  it("serves subdirectories only with the recursive flag", async () => {
    const dir = await tempDir();
    await writeSession(dir, "top.jsonl", [snapshotLine({ sessionId: "top" })]);
    await mkdir(path.join(dir, "runs", "a"), { recursive: true });
    await writeSession(path.join(dir, "runs", "a"), "nested.jsonl", [snapshotLine({ sessionId: "nested" })]);
    const flat = await testApp({ path: dir });
    expect((await get(flat, "/api/snapshots")).json().map((file: { path: string }) => file.path)).toEqual(["top.jsonl"]);
    const deep = await testApp({ path: dir, recursive: true });
    expect((await get(deep, "/api/snapshots")).json().map((file: { path: string }) => file.path).sort()).toEqual(["runs/a/nested.jsonl", "top.jsonl"]);
    expect((await get(deep, "/api/meta?file=runs/a/nested.jsonl")).json().session_id).toBe("nested");
    expect((await post(deep, "/api/switch", { path: "runs" })).json().path).toBe("runs/a/nested.jsonl");
  });

  it("does not list an undo store's manifests as sessions when recursive", async () => {
    const dir = await tempDir();
    await writeSession(dir, "top.jsonl", [snapshotLine({ sessionId: "top" })]);
    const snapshot = path.join(dir, "undo", "snapshots", "top", "call-1");
    await mkdir(snapshot, { recursive: true });
    await writeFile(path.join(snapshot, "manifest.json"), JSON.stringify({ format: "wink-undo", version: 1 }));
    // A session file elsewhere under a folder called "undo" is still listed.
    await mkdir(path.join(dir, "undo", "runs"), { recursive: true });
    await writeSession(path.join(dir, "undo", "runs"), "kept.jsonl", [snapshotLine({ sessionId: "kept" })]);
    const deep = await testApp({ path: dir, recursive: true });
    expect((await get(deep, "/api/snapshots")).json().map((file: { path: string }) => file.path).sort()).toEqual(["top.jsonl", "undo/runs/kept.jsonl"]);
  });

  it("answers for a 17 MB line, paginating its slice", async () => {
    const dir = await tempDir();
    const big = "x".repeat(17 * 1024 * 1024);
    await writeSession(dir, "big.jsonl", [snapshotLine({ sessionId: "big", slices: [{ type: NOTE, items: [{ text: big }, { text: "small" }] }] })]);
    const app = await testApp({ path: dir });
    expect((await get(app, "/api/meta")).json().slices[0].count).toBe(2);
    const page = (await get(app, `/api/slices/${encodeURIComponent(NOTE)}?offset=1&limit=1`)).json();
    expect(page.items).toEqual([{ __type__: NOTE, text: "small" }]);
    const first = await get(app, `/api/slices/${encodeURIComponent(NOTE)}?limit=1`);
    expect(first.statusCode).toBe(200);
    expect(first.json().items[0].text).toHaveLength(big.length);
  });

  it("switching files switches the companion archive", async () => {
    const dir = await tempDir();
    for (const [name, content] of [["one", "first"], ["two", "second"]] as const) {
      await writeSession(dir, `${name}.jsonl`, [snapshotLine({ sessionId: name })]);
      execFileSync("python3", ["-c", `import zipfile,sys\nwith zipfile.ZipFile(sys.argv[1], "w") as z:\n  z.writestr("files/${name}.txt", "${content}")\n  z.writestr("manifest.json", '{"version":"1","created_at":"2026-11-22T00:00:00+00:00","file_count":1,"total_bytes":${content.length}}')`, path.join(dir, `${name}.fs.zip`)]);
    }
    const app = await testApp({ path: dir });
    await post(app, "/api/switch", { path: "one.jsonl" });
    expect((await get(app, "/api/filesystem/file?path=one.txt")).json().content).toBe("first");
    await post(app, "/api/switch", { path: "two.jsonl" });
    expect((await get(app, "/api/filesystem/file?path=two.txt")).json().content).toBe("second");
    expect((await get(app, "/api/filesystem/file?path=one.txt")).statusCode).toBe(404);
  });
});
