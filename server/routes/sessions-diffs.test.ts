// Session trees, timelines, diffs between snapshots, and search, over the fixture session
// tree and generated archives.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { patchCrc } from "../../shared/archive/archive.test-support.js";
import { FIXTURES, cleanUp, copyFixture, get, snapshotLine, tempDir, testApp, writeSession } from "../server.test-support.js";

afterEach(cleanUp);

const TREE_FILE = "db5c4ea2-559a-52c5-8313-741e72978682.jsonl";
const ROOT = "db5c4ea2-559a-52c5-8313-741e72978682";
const REF = "wink_debug.session:FilesystemSnapshotRef";
const TOOL = "weakincentives.runtime.events._types:ToolInvoked";

function zipWithPython(target: string, files: Record<string, string>): void {
  const script = `
import json, sys, zipfile
files = json.loads(sys.argv[2])
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for name, text in files.items():
        z.writestr("files/" + name, text.encode("utf-8"))
    z.writestr("manifest.json", json.dumps({"version": "1", "created_at": "2026-11-22T01:00:00+00:00", "file_count": len(files), "total_bytes": sum(len(t.encode()) for t in files.values())}))
`;
  execFileSync("python3", ["-c", script, target, JSON.stringify(files)]);
}

describe("GET /api/files", () => {
  it("nests the fixture's sessions by parent, and lists the child WINK skipped as missing", async () => {
    const app = await testApp({ path: await copyFixture(path.join(FIXTURES, TREE_FILE)) });
    const { files, root, indexing } = (await get(app, "/api/files?wait=1")).json();
    expect(indexing).toBe(false);
    expect(root).not.toContain("/");
    const [file] = files;
    expect(file).toMatchObject({ path: TREE_FILE, status: "ready", snapshot_count: 4, line_count: 4, errors: [], duplicate_session_ids: [] });
    expect(file.sessions).toHaveLength(1);
    const [top] = file.sessions;
    expect(top.session_id).toBe(ROOT);
    expect(top.missing_children).toHaveLength(1);
    expect(top.children.map((child: { line_number: number }) => child.line_number)).toEqual([4, 2]);
    const scout = top.children.find((child: { tags: Record<string, string> }) => child.tags.agent === "test-scout");
    expect(scout.children.map((child: { tags: Record<string, string> }) => child.tags.agent)).toEqual(["line-counter"]);
    expect(top.event_count).toBeGreaterThan(20);
  });

  it("keeps duplicate session ids apart as separate lines", async () => {
    const dir = await tempDir();
    await writeSession(dir, "dup.jsonl", [snapshotLine({ sessionId: "p", childrenIds: ["c"] }), snapshotLine({ sessionId: "c", parentId: "p" }), snapshotLine({ sessionId: "c", parentId: "p" })]);
    const app = await testApp({ path: dir });
    const [file] = (await get(app, "/api/files?file=dup.jsonl")).json().files;
    expect(file.duplicate_session_ids).toEqual(["c"]);
    expect(file.sessions[0].children.map((child: { line_number: number }) => child.line_number)).toEqual([2, 3]);
  });
});

describe("GET /api/timeline", () => {
  it("orders events by time, counts tool calls and aggregates failures", async () => {
    const app = await testApp({ path: await copyFixture(path.join(FIXTURES, TREE_FILE)) });
    const timeline = (await get(app, `/api/timeline?file=${TREE_FILE}&line=1`)).json();
    expect(timeline.session_id).toBe(ROOT);
    expect(timeline.snapshots).toEqual([expect.objectContaining({ line_number: 1, selected: true })]);
    const times = timeline.events.map((event: { created_at: string }) => Date.parse(event.created_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(timeline.tool_calls.total).toBe(20);
    expect(timeline.tool_calls.failed).toBe(2);
    const failures = timeline.errors.filter((error: { source: string }) => error.source === "tool_call");
    expect(failures).toHaveLength(2);
    for (const failure of failures) {
      const event = timeline.events[failure.event_index];
      expect(event).toMatchObject({ kind: "tool_call", success: false });
      expect(failure.message).toContain("Tool validation failed");
    }
    const readFile = timeline.tool_calls.by_name.find((stats: { name: string }) => stats.name === "read_file");
    expect(readFile).toMatchObject({ count: 4, failed: 1 });
  });

  it("lists a session's lines in time order and reports lines of the file that did not load", async () => {
    const dir = await tempDir();
    await writeSession(dir, "run.jsonl", [
      snapshotLine({ sessionId: "s", createdAt: "2026-11-22T03:00:00+00:00" }),
      "{broken",
      snapshotLine({ sessionId: "s", createdAt: "2026-11-22T01:00:00+00:00", slices: [{ type: TOOL, items: [{ event_id: "e1", created_at: "2026-11-22T00:59:00+00:00", name: "ls", result: { success: true, message: "ok" }, duration_ms: 12 }] }] }),
    ]);
    const app = await testApp({ path: dir });
    const timeline = (await get(app, "/api/timeline?line=3")).json();
    expect(timeline.snapshots.map((snapshot: { line_number: number }) => snapshot.line_number)).toEqual([3, 1]);
    expect(timeline.events).toEqual([expect.objectContaining({ kind: "tool_call", title: "ls", success: true, duration_ms: 12, summary: "ok" })]);
    expect(timeline.errors).toEqual([expect.objectContaining({ source: "line", line_number: 2 })]);
  });
});

describe("diffs", () => {
  it("compares two archives from sizes and CRCs, then diffs one file on demand", async () => {
    const dir = await tempDir();
    const base: Record<string, string> = {};
    for (let i = 0; i < 40; i++) base[`src/file-${i}.txt`] = `line one of ${i}\nline two\nline three\n`;
    const target = { ...base, "src/file-3.txt": "line one of 3\nline 2 changed\nline three\n", "src/added.txt": "new\n" };
    delete (target as Record<string, string | undefined>)["src/file-7.txt"];
    zipWithPython(path.join(dir, "turn-1.fs.zip"), base);
    zipWithPython(path.join(dir, "turn-2.fs.zip"), target);
    await writeSession(dir, "run.jsonl", [
      snapshotLine({ sessionId: "s", slices: [{ type: REF, items: [{ archive_path: "turn-1.fs.zip", file_count: 40, total_bytes: 1 }] }] }),
      snapshotLine({
        sessionId: "s",
        createdAt: "2026-11-22T02:00:00+00:00",
        slices: [
          { type: REF, items: [{ archive_path: "turn-1.fs.zip", file_count: 40, total_bytes: 1 }, { archive_path: "turn-2.fs.zip", file_count: 40, total_bytes: 1 }] },
          { type: TOOL, items: [{ event_id: "e1", created_at: "2026-11-22T01:30:00+00:00", name: "write_file", result: { success: true } }] },
        ],
      }),
    ]);
    const app = await testApp({ path: dir });
    const overview = (await get(app, "/api/diff?target_line=2")).json();
    expect(overview.base).toMatchObject({ file: "run.jsonl", line_number: 1 });
    expect(overview.files).toMatchObject({ base_source: "archive", target_source: "archive", added: 1, modified: 1, deleted: 1, unchanged_count: 38 });
    expect(overview.files.changes).toEqual([
      { path: "src/added.txt", status: "added", old_path: null, similarity: null, base_size: null, target_size: 4 },
      { path: "src/file-3.txt", status: "modified", old_path: null, similarity: null, base_size: Buffer.byteLength(base["src/file-3.txt"] ?? ""), target_size: Buffer.byteLength(target["src/file-3.txt"]) },
      { path: "src/file-7.txt", status: "deleted", old_path: null, similarity: null, base_size: Buffer.byteLength(base["src/file-7.txt"] ?? ""), target_size: null },
    ]);
    const ref = overview.slices.find((slice: { display_name: string }) => slice.display_name === "FilesystemSnapshotRef");
    expect(ref).toMatchObject({ status: "changed", base_count: 1, target_count: 2, added: 1 });
    expect(overview.slices.find((slice: { display_name: string }) => slice.display_name === "ToolInvoked")).toMatchObject({ status: "added", added: 1 });

    const file = (await get(app, "/api/diff/file?target_line=2&path=src/file-3.txt")).json();
    expect(file).toMatchObject({ status: "modified", engine: "jsdiff", binary: false, note: null });
    expect(file.hunks).toHaveLength(1);
    expect(file.hunks[0].lines).toEqual([" line one of 3", "-line two", "+line 2 changed", " line three"]);
    expect((await get(app, "/api/diff/file?target_line=2&path=src/added.txt")).json()).toMatchObject({ status: "added", hunks: [{ lines: ["+new"] }] });
    expect((await get(app, "/api/diff/file?target_line=2&path=src/file-1.txt")).json()).toMatchObject({ status: "unchanged", hunks: [] });
    expect((await get(app, "/api/diff/file?target_line=2&path=nope.txt")).statusCode).toBe(404);
    expect((await get(app, "/api/diff/file?target_line=2&path=../x")).statusCode).toBe(400);
  });

  it("compares any two snapshots across files and sessions, slices item by item", async () => {
    const app = await testApp({ path: await copyFixture(path.join(FIXTURES, TREE_FILE), path.join(FIXTURES, "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl")) });
    const overview = (await get(app, `/api/diff?base_file=${TREE_FILE}&base_line=2&target_file=${TREE_FILE}&target_line=3`)).json();
    expect(overview.base.line_number).toBe(2);
    expect(overview.target.line_number).toBe(3);
    expect(overview.files.base_source).toBe("virtual_filesystem");
    const across = (await get(app, `/api/diff?base_file=${TREE_FILE}&base_line=1&target_file=acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl`)).json();
    expect(across.files).toMatchObject({ target_source: null, deleted: 14, added: 0 });
    const plan = "weakincentives.contrib.tools.planning:Plan";
    const slice = (await get(app, `/api/diff/slice?base_file=${TREE_FILE}&base_line=1&target_file=acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl&slice_type=${encodeURIComponent(plan)}`)).json();
    expect(slice).toMatchObject({ status: "changed", engine: "jsdiff", base_count: 1, target_count: 1 });
    expect(slice.items).toEqual([{ key: "#0", status: "changed", base_index: 0, target_index: 0 }]);
    expect(slice.hunks.flatMap((hunk: { lines: string[] }) => hunk.lines).some((line: string) => line.startsWith("+") && line.includes("Ship the v0.2 release notes"))).toBe(true);
  });

  it("asks for a base when the session has no earlier line", async () => {
    const app = await testApp({ path: await copyFixture(path.join(FIXTURES, TREE_FILE)) });
    const response = await get(app, "/api/diff");
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toContain("base_file");
  });

  it("falls back to git when jsdiff runs out of time on a rewritten file", async () => {
    const dir = await tempDir();
    const lines = (seed: number) => Array.from({ length: 6000 }, (_, i) => `${seed}-${(i * 7919 + seed) % 100003}`).join("\n");
    zipWithPython(path.join(dir, "a.fs.zip"), { "big.txt": lines(1) });
    zipWithPython(path.join(dir, "b.fs.zip"), { "big.txt": lines(2) });
    await writeSession(dir, "a.jsonl", [snapshotLine({ sessionId: "a" })]);
    await writeSession(dir, "b.jsonl", [snapshotLine({ sessionId: "b" })]);
    const app = await testApp({ path: dir });
    const started = Date.now();
    const file = (await get(app, "/api/diff/file?base_file=a.jsonl&target_file=b.jsonl&path=big.txt")).json();
    expect(file.status).toBe("modified");
    expect(["jsdiff", "git"]).toContain(file.engine);
    const removed = file.hunks.flatMap((hunk: { lines: string[] }) => hunk.lines).filter((line: string) => line.startsWith("-")).length;
    expect(removed).toBe(6000);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe("GET /api/search", () => {
  it("finds text in slices (with the JSON path) and in workspace files (with line and column)", async () => {
    const app = await testApp({ path: await copyFixture(path.join(FIXTURES, TREE_FILE)) });
    const result = (await get(app, "/api/search?q=gen_moves&limit=500")).json();
    const sliceHit = result.hits.find((hit: { kind: string }) => hit.kind === "slice");
    expect(sliceHit).toMatchObject({ kind: "slice", display_name: expect.any(String) });
    expect(sliceHit.snippet.toLowerCase()).toContain("gen_moves");
    const fileHit = result.hits.find((hit: { kind: string; path?: string }) => hit.kind === "file" && hit.path === "sunfish/sunfish.py");
    expect(fileHit.line).toBeGreaterThan(0);
    const source = (await get(app, "/api/filesystem/file?path=sunfish/sunfish.py")).json().content.split("\n")[fileHit.line - 1];
    expect(source.slice(fileHit.column - 1, fileHit.column - 1 + "gen_moves".length)).toBe("gen_moves");
    const onlyFiles = (await get(app, "/api/search?q=GEN_MOVES&scope=files")).json();
    expect(onlyFiles.hits.every((hit: { kind: string }) => hit.kind === "file")).toBe(true);
    expect(onlyFiles.scanned_files).toBe(14);
    const limited = (await get(app, "/api/search?q=e&limit=3")).json();
    expect(limited.hits).toHaveLength(3);
    expect(limited.truncated).toBe(true);
    expect((await get(app, "/api/search?q=")).statusCode).toBe(400);
  });

  it("skips a corrupt archive entry and reports it, instead of failing the whole search (issue 14, finding 8)", async () => {
    const dir = await tempDir();
    zipWithPython(path.join(dir, "run.fs.zip"), { "a.txt": "needle in a\n", "b.txt": "needle in b\n", "c.txt": "needle in c\n" });
    await patchCrc(path.join(dir, "run.fs.zip"), "files/b.txt", 0xdeadbeef);
    await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "s" })]);
    const app = await testApp({ path: dir });
    const response = await get(app, "/api/search?q=needle&scope=files");
    expect(response.statusCode).toBe(200);
    const result = response.json();
    expect(result.hits.map((hit: { path: string }) => hit.path)).toEqual(["a.txt", "c.txt"]);
    expect(result.scanned_files).toBe(2);
    expect(result.skipped_files).toEqual([{ path: "b.txt", detail: expect.stringMatching(/CRC-32 mismatch.*files\/b\.txt/) }]);
    // The file itself is still refused on its own, with its reason.
    expect((await get(app, "/api/filesystem/file?path=b.txt")).statusCode).toBe(422);
  });
});
