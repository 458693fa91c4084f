import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ArchiveSummary } from "../filesystem/protocol.js";
import type { ArchiveExporter } from "./dump-session.node.js";
import { dumpSession, dumpSessionTree } from "./dump-session.node.js";
import { parsePythonJson } from "./python-json-parse.js";
import { readSessionFile } from "./session-file.node.js";
import { Session } from "./session-model.js";
import { buildSessionTree } from "./session-tree.js";
import { FILESYSTEM_SNAPSHOT_REF_TYPE, findFilesystemSnapshotRef } from "./workspace-items.js";

const clock = (): Date => new Date(Date.UTC(2026, 10, 22, 1, 32, 19, 511));

/**
 * Stand-in for a Filesystem backend (only `exportArchive` is used here): writes a real
 * `.fs.zip` with Python's zipfile, in the seed format (manifest.json + files/…).
 */
class PythonZipExporter implements ArchiveExporter {
  readonly exported: string[] = [];
  constructor(private readonly files: Record<string, string>) {}

  async exportArchive(archivePath: string): Promise<ArchiveSummary> {
    const script = [
      "import json, sys, zipfile",
      "files = json.loads(sys.argv[2])",
      "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as zf:",
      "    for path, text in sorted(files.items()): zf.writestr('files/' + path, text.encode())",
      "    total = sum(len(t.encode()) for t in files.values())",
      "    zf.writestr('manifest.json', json.dumps({'version': '1', 'created_at': '2026-11-22T01:32:19+00:00', 'file_count': len(files), 'total_bytes': total}))",
      "print(total)",
    ].join("\n");
    const total = Number(execFileSync("python3", ["-c", script, archivePath, JSON.stringify(this.files)], { encoding: "utf8" }).trim());
    this.exported.push(archivePath);
    return { archivePath, fileCount: Object.keys(this.files).length, totalBytes: total, directoryCount: 0, skipped: [] };
  }
}

function pythonCanonical(line: string): string {
  return execFileSync("python3", ["-c", "import json,sys; print(json.dumps(json.loads(sys.stdin.read()), sort_keys=True))"], { input: line, encoding: "utf8" }).trimEnd();
}

function sampleTree(): Session {
  const root = new Session({ sessionId: "root-id", tags: { app: "code-reviewer" }, clock });
  root.append("weakincentives.contrib.tools.planning:Plan", { objective: "Review", steps: [{ step_id: 1, title: "Read é" }] });
  root.append("weakincentives.runtime.events._types:ToolInvoked", {
    event_id: "e1",
    created_at: "2026-11-22T01:32:19.508714+00:00",
    name: "read_file",
    params: { path: "src/main.py" },
    result: { message: "ok", value: null, success: true },
    usage: { input_tokens: 2n ** 60n, ratio: 0.25, nan: Number.NaN },
  });
  const scout = root.createChild({ sessionId: "scout-id", tags: { agent: "scout" } });
  scout.append("weakincentives.contrib.tools.vfs:VirtualFileSystem", { files: [{ path: { segments: ["a.txt"] }, content: "hi\u2028\ud800", size_bytes: 6, version: 1 }] });
  scout.createChild({ sessionId: "leaf-id" }).append("m:Count", { n: 1 });
  root.createChild({ sessionId: "idle-id" });
  return root;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "wink-dump-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("dumpSession", () => {
  it("writes <root id>.jsonl, root first, one Python-canonical line per non-empty session", async () => {
    const path = await dumpSession(sampleTree(), dir);
    expect(path).toBe(join(dir, "root-id.jsonl"));
    const text = await readFile(path!, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.trimEnd().split("\n");
    expect(lines.map((line) => (parsePythonJson(line) as { tags: { session_id: string } }).tags.session_id)).toEqual(["root-id", "scout-id", "leaf-id"]);
    for (const line of lines) expect(pythonCanonical(line)).toBe(line);
    expect(lines[0]).toContain('"input_tokens": 1152921504606846976, "nan": NaN, "ratio": 0.25');
    expect(lines[0]).toContain('"created_at": "2026-11-22T01:32:19.511000+00:00"');
  });

  it("re-reads to the same snapshots and the same tree, root first", async () => {
    const root = sampleTree();
    const path = await dumpSession(root, dir);
    const { snapshots, errors } = await readSessionFile(path!);
    expect(errors).toEqual([]);
    const expected = [root, root.children[0]!, root.children[0]!.children[0]!].map((session) => session.snapshot());
    expect(snapshots.map(({ lineNumber: _n, ...rest }) => rest)).toEqual(expected.map(({ lineNumber: _n, ...rest }) => rest));
    const tree = buildSessionTree(snapshots);
    expect(tree.roots.map((node) => [node.sessionId, node.lineNumber, node.missingChildren])).toEqual([["root-id", 1, ["idle-id"]]]);
    expect(tree.roots[0]?.children.map((node) => [node.sessionId, node.children.map((c) => c.sessionId)])).toEqual([["scout-id", ["leaf-id"]]]);
    const vfs = snapshots[1]?.slices[0]?.items[0]?.files as { content: string }[];
    expect(vfs[0]?.content).toBe("hi\u2028\ud800");
  });

  it("renames other targets to <session_id>.jsonl in the same directory, like WINK", async () => {
    const session = new Session({ sessionId: "abc" });
    session.append("m:A", { v: 1 });
    expect(await dumpSession(session, join(dir, "custom.json"))).toBe(join(dir, "abc.jsonl"));
    expect(await dumpSession(session, join(dir, "custom.jsonl"))).toBe(join(dir, "abc.jsonl"));
    expect(await dumpSession(session, join(dir, "abc.jsonl"))).toBe(join(dir, "abc.jsonl"));
    expect(await dumpSession(session, join(dir, "nested", "deeper", "x.jsonl"))).toBe(join(dir, "nested", "deeper", "abc.jsonl"));
    expect((await readdir(dir)).sort()).toEqual(["abc.jsonl", "nested"]);
  });

  it("writes nothing and returns null for a session with only empty slices", async () => {
    const session = new Session({ sessionId: "empty" });
    session.replace("m:A", []);
    session.createChild().replace("m:B", []);
    expect(await dumpSession(session, dir)).toBeNull();
    expect(await readdir(dir)).toEqual([]);
  });

  it("replaces an existing file atomically, leaving no temporary file", async () => {
    const session = new Session({ sessionId: "s" });
    session.append("m:A", { v: 1 });
    await writeFile(join(dir, "s.jsonl"), "old content\n");
    await dumpSession(session, dir);
    expect(await readdir(dir)).toEqual(["s.jsonl"]);
    expect(await readFile(join(dir, "s.jsonl"), "utf8")).toContain('"v": 1');
  });
});

describe("dumpSessionTree", () => {
  it("exports <id>.fs.zip first and records a FilesystemSnapshotRef the re-read file resolves", async () => {
    const root = sampleTree();
    const exporter = new PythonZipExporter({ "src/main.py": "print('hi')\n", "README.md": "# é\n" });
    const path = await dumpSessionTree(root, dir, { filesystem: exporter });
    expect(path).toBe(join(dir, "root-id.jsonl"));
    expect(exporter.exported).toEqual([join(dir, "root-id.fs.zip")]);
    expect((await readdir(dir)).sort()).toEqual(["root-id.fs.zip", "root-id.jsonl"]);
    const names = execFileSync("python3", ["-c", "import sys, zipfile; print(sorted(zipfile.ZipFile(sys.argv[1]).namelist()))", join(dir, "root-id.fs.zip")], { encoding: "utf8" });
    expect(names.trim()).toBe("['files/README.md', 'files/src/main.py', 'manifest.json']");

    const { snapshots } = await readSessionFile(path!);
    const ref = findFilesystemSnapshotRef(snapshots[0]!);
    expect(ref).toMatchObject({ archivePath: "root-id.fs.zip", archiveName: "root-id.fs.zip", fileCount: 2, totalBytes: 17 });
    expect(snapshots[0]?.slices.find((slice) => slice.sliceType === FILESYSTEM_SNAPSHOT_REF_TYPE)?.items).toEqual([
      { __type__: "wink_debug.session:FilesystemSnapshotRef", archive_path: "root-id.fs.zip", file_count: 2, total_bytes: 17 },
    ]);
    expect(snapshots.slice(1).map(findFilesystemSnapshotRef)).toEqual([null, null]);
  });

  it("accepts a file path or a directory still to create as the target", async () => {
    const session = new Session({ sessionId: "s" });
    session.append("m:A", { v: 1 });
    expect(await dumpSessionTree(session, join(dir, "whatever.jsonl"))).toBe(join(dir, "s.jsonl"));
    expect(await dumpSessionTree(session, join(dir, "new-dir"))).toBe(join(dir, "new-dir", "s.jsonl"));
    await mkdir(join(dir, "exists.d"));
    expect(await dumpSessionTree(session, join(dir, "exists.d"))).toBe(join(dir, "exists.d", "s.jsonl"));
  });

  it("leaves the session unchanged and writes no JSONL when the export fails", async () => {
    const session = new Session({ sessionId: "s" });
    session.append("m:A", { v: 1 });
    const failing: ArchiveExporter = { exportArchive: () => Promise.reject(new Error("disk full")) };
    await expect(dumpSessionTree(session, dir, { filesystem: failing })).rejects.toThrow("disk full");
    expect(session.sliceTypes()).toEqual(["m:A"]);
    expect(await readdir(dir)).toEqual([]);
  });
});
