import { describe, expect, it } from "vitest";
import { parseSnapshotLine } from "../session/snapshot-line.js";
import { adjacentArchiveName, archiveCandidates, archiveFileName } from "./workspace-archives.js";

function line(slices: unknown[]): ReturnType<typeof parseSnapshotLine> {
  return parseSnapshotLine(JSON.stringify({ version: "1", created_at: "2024-01-01T00:00:00+00:00", parent_id: null, children_ids: [], tags: { session_id: "s" }, slices }), 1);
}

describe("workspace archive names", () => {
  it("keeps only the last component of archive_path, refusing dot and control names", () => {
    expect(archiveFileName("/abs/dir/run.fs.zip")).toBe("run.fs.zip");
    expect(archiveFileName("C:\\runs\\x.fs.zip")).toBe("x.fs.zip");
    expect(archiveFileName("a/..")).toBeNull();
    expect(archiveFileName("bad\u0007.zip")).toBeNull();
    expect(archiveFileName(null)).toBeNull();
  });

  it("derives the adjacent archive from .jsonl and .json names", () => {
    expect(adjacentArchiveName("abc.jsonl")).toBe("abc.fs.zip");
    expect(adjacentArchiveName("abc.JSON")).toBe("abc.fs.zip");
  });

  it("tries the referenced archive first, then the adjacent one", () => {
    const parsed = line([{ slice_type: "m:FilesystemSnapshotRef", item_type: "m:FilesystemSnapshotRef", items: [{ archive_path: "/tmp/turn-2.fs.zip", file_count: 1, total_bytes: 2 }] }]);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(archiveCandidates("run.jsonl", parsed.snapshot)).toEqual({ referenced: "turn-2.fs.zip", names: ["turn-2.fs.zip", "run.fs.zip"] });
    expect(archiveCandidates("run.jsonl", null)).toEqual({ referenced: null, names: ["run.fs.zip"] });
  });
});
