import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { dumpsPython } from "./python-json-dumps.js";
import { Session } from "./session-model.js";
import { parseSessionText } from "./session-text.js";
import { parseSnapshotLine } from "./snapshot-line.js";
import { extractVirtualFiles, FILESYSTEM_SNAPSHOT_REF_TYPE, findFilesystemSnapshotRef } from "./workspace-items.js";
import { WINK_FIXTURES } from "../../fixtures/paths.js";

const FIXTURES = WINK_FIXTURES;

describe("extractVirtualFiles", () => {
  const { snapshots } = parseSessionText(readFileSync(`${FIXTURES}/db5c4ea2-559a-52c5-8313-741e72978682.jsonl`));

  it("turns WINK's VirtualFileSystem slice into files with joined paths", () => {
    const files = extractVirtualFiles(snapshots[0]!);
    expect(files).not.toBeNull();
    expect(files!.length).toBeGreaterThan(3);
    const workflow = files!.find((file) => file.path === "sunfish/.github/workflows/python-app.yml");
    expect(workflow).toMatchObject({
      segments: ["sunfish", ".github", "workflows", "python-app.yml"],
      sizeBytes: 1227,
      version: 1,
      createdAt: "2026-11-22T01:32:19.513000+00:00",
      updatedAt: "2026-11-22T01:32:19.513000+00:00",
      encoding: "utf-8",
    });
    expect(workflow!.content.startsWith("# This workflow will install Python dependencies")).toBe(true);
    for (const file of files!) expect(file.sizeBytes).toBe(Buffer.byteLength(file.content, "utf8"));
  });

  it("gives every line of the tree its own file set, and null for a snapshot without the slice", () => {
    expect(snapshots.every((snapshot) => extractVirtualFiles(snapshot) !== null)).toBe(true);
    const plain = parseSessionText(readFileSync(`${FIXTURES}/acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl`)).snapshots[0]!;
    expect(extractVirtualFiles(plain)).toBeNull();
  });

  it("uses the latest item and leaves out malformed entries", () => {
    const session = new Session({ sessionId: "s" });
    session.append("weakincentives.contrib.tools.vfs:VirtualFileSystem", { files: [{ path: { segments: ["old.txt"] }, content: "old" }] });
    session.append("weakincentives.contrib.tools.vfs:VirtualFileSystem", {
      files: [
        { path: { segments: ["src", "é.py"] }, content: "x = 'é'\n" },
        { path: { segments: ["bad", 3] }, content: "x" },
        { path: "flat", content: "x" },
        { path: { segments: ["no-content"] } },
        "junk",
      ],
    });
    expect(extractVirtualFiles(session.snapshot())).toEqual([
      { path: "src/é.py", segments: ["src", "é.py"], content: "x = 'é'\n", sizeBytes: 9, version: null, createdAt: null, updatedAt: null, encoding: null },
    ]);
  });
});

describe("findFilesystemSnapshotRef", () => {
  it("finds the latest ref under our type id, through a written and re-read line", () => {
    const session = new Session({ sessionId: "abc123" });
    session.append(FILESYSTEM_SNAPSHOT_REF_TYPE, { archive_path: "turn-1.fs.zip", file_count: 1, total_bytes: 10 });
    session.append(FILESYSTEM_SNAPSHOT_REF_TYPE, { archive_path: "/tmp/snaps/turn-2.fs.zip", file_count: 42, total_bytes: 123456 });
    const reread = parseSnapshotLine(dumpsPython(session.snapshot().raw, { sortKeys: true }), 1);
    if (!reread.ok) throw new Error(reread.error.reason);
    expect(findFilesystemSnapshotRef(reread.snapshot)).toMatchObject({
      archivePath: "/tmp/snaps/turn-2.fs.zip",
      archiveName: "turn-2.fs.zip",
      fileCount: 42,
      totalBytes: 123456,
    });
    expect(FILESYSTEM_SNAPSHOT_REF_TYPE).toMatch(/^[a-z_.]+:FilesystemSnapshotRef$/);
  });

  it("matches WINK's module paths by display name, and tolerates a null archive_path", () => {
    const session = new Session({ sessionId: "s" });
    session.append("weakincentives.filesystem:FilesystemSnapshotRef", { archive_path: null, file_count: 0, total_bytes: 0 });
    expect(findFilesystemSnapshotRef(session.snapshot())).toMatchObject({ archivePath: null, archiveName: null, fileCount: 0 });
    session.append("weakincentives.filesystem:FilesystemSnapshotRef", { archive_path: "C:\\runs\\abc.fs.zip", file_count: "x" });
    expect(findFilesystemSnapshotRef(session.snapshot())).toMatchObject({ archiveName: "abc.fs.zip", fileCount: 0, totalBytes: 0 });
  });

  it("returns null when no slice holds a ref (every WINK fixture)", () => {
    const { snapshots } = parseSessionText(readFileSync(`${FIXTURES}/db5c4ea2-559a-52c5-8313-741e72978682.jsonl`));
    expect(snapshots.map(findFilesystemSnapshotRef)).toEqual([null, null, null, null]);
  });
});
