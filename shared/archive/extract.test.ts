import { createHash } from "node:crypto";
import nodePath from "node:path";
import { describe, expect, it } from "vitest";
import { ArchiveError, FileNotFoundError, NoSpaceError, StorageIOError } from "../errors.js";
import type { TreeTransaction } from "../filesystem/driver.js";
import { RecordingTransaction, RecordingWorkspace, memorySource, patchCrc, python } from "./archive.test-support.js";
import { useTempDir } from "./temp-dir.test-support.js";
import { extractArchive } from "./extract.node.js";
import { writeArchive } from "./writer.node.js";
import { winkFixture } from "../../fixtures/paths.js";

const FIXTURE = winkFixture("fszip-pr633/0f5f356f-9bfe-4e60-8222-b6a717dc8521.fs.zip");

const tempDir = useTempDir();

async function caught(promise: Promise<unknown>): Promise<ArchiveError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as ArchiveError;
}

/** An archive built by Python's zipfile from (name, content, unix mode) triples plus a manifest object. */
async function pythonArchive(name: string, entries: [string, string, number][], manifest: Record<string, unknown> | null): Promise<string> {
  const path = nodePath.join(tempDir(), name);
  await python(
    `import sys, json, zipfile
entries = json.loads(sys.argv[2]); manifest = json.loads(sys.argv[3])
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for name, content, mode in entries:
        info = zipfile.ZipInfo(name)
        info.external_attr = mode << 16
        info.compress_type = zipfile.ZIP_STORED if name.endswith("/") else zipfile.ZIP_DEFLATED
        z.writestr(info, content)
    if manifest is not None:
        z.writestr("manifest.json", json.dumps(manifest))`,
    [path, JSON.stringify(entries), JSON.stringify(manifest)],
  );
  return path;
}

const manifest = (extra: Record<string, unknown> = {}) => ({ version: "1", created_at: "2025-01-01T12:00:00+00:00", file_count: 1, total_bytes: 1, ...extra });
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

describe("extractArchive: modes", () => {
  it("strips setuid/setgid/sticky and group/other write bits, keeps exec bits and owner access", async () => {
    const path = await pythonArchive(
      "modes.zip",
      [
        ["files/suid", "x", 0o104755],
        ["files/sgid", "x", 0o102755],
        ["files/world", "x", 0o100777],
        ["files/group-rw", "x", 0o100664],
        ["files/private", "x", 0o100700],
        ["files/unreadable", "x", 0o100000 | 0o044],
        ["files/other-exec-only", "x", 0o100645],
        ["files/sticky-dir/", "", 0o41777],
        ["files/closed-dir/", "", 0o40000],
      ],
      manifest(),
    );
    const tx = new RecordingTransaction();
    await extractArchive(path, tx);
    const modes = Object.fromEntries([...tx.nodes].map(([p, node]) => [p, node.mode?.toString(8)]));
    expect(modes).toEqual({
      suid: "755",
      sgid: "755",
      world: "755",
      "group-rw": "644",
      private: "700",
      unreadable: "644",
      "other-exec-only": "644",
      "sticky-dir": "755",
      "closed-dir": "700",
    });
  });
});

describe("extractArchive: limits on declared sizes, before any write", () => {
  it("refuses a file over maxFileBytes and an archive over maxTotalBytes, naming the entry", async () => {
    const path = nodePath.join(tempDir(), "sizes.fs.zip");
    await writeArchive(path, memorySource([{ path: "a", content: "x".repeat(600) }, { path: "b", content: "y".repeat(600) }]));
    const tx = new RecordingTransaction();
    expect(await caught(extractArchive(path, tx, { limits: { maxFileBytes: 599 } }))).toMatchObject({ code: "E_ARCHIVE_LIMIT", data: { entry: "files/a" } });
    expect(await caught(extractArchive(path, tx, { limits: { maxTotalBytes: 1000 } }))).toMatchObject({ code: "E_ARCHIVE_LIMIT", data: { entry: "files/b" } });
    expect(await caught(extractArchive(path, tx, { limits: { maxEntries: 2 } }))).toMatchObject({ code: "E_ARCHIVE_LIMIT" });
    expect(tx.calls).toEqual([]);
    await extractArchive(path, tx, { limits: { maxFileBytes: 600, maxTotalBytes: 1200, maxEntries: 3 } });
    expect(tx.files().size).toBe(2);
  });
});

describe("extractArchive: the manifest is checked", () => {
  it("refuses a manifest listing a missing file, a wrong size or a directory over a file, before any write", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [manifest({ files: [{ path: "missing", size_bytes: 1 }] }), "E_ARCHIVE_MANIFEST", "manifest.json"],
      [manifest({ files: [{ path: "a", size_bytes: 2 }] }), "E_ARCHIVE_MANIFEST", "files/a"],
      [manifest({ directories: ["a"] }), "E_ARCHIVE_MANIFEST", "manifest.json"],
      [manifest({ directories: ["a/below"] }), "E_ARCHIVE_MANIFEST", "manifest.json"],
    ];
    for (const [index, [value, code, entry]] of cases.entries()) {
      const path = await pythonArchive(`m${index}.zip`, [["files/a", "1", 0o100644]], value);
      const tx = new RecordingTransaction();
      expect(await caught(extractArchive(path, tx))).toMatchObject({ code, data: { entry } });
      expect(tx.calls).toEqual([]);
    }
  });

  it("checks SHA-256 of listed files; a mismatch fails naming the entry and the workspace keeps its state", async () => {
    const good = await pythonArchive("sha-ok.zip", [["files/a", "1", 0o100644]], manifest({ files: [{ path: "a", size_bytes: 1, sha256: sha("1") }] }));
    const bad = await pythonArchive("sha-bad.zip", [["files/a", "1", 0o100644]], manifest({ files: [{ path: "a", size_bytes: 1, sha256: sha("2") }] }));
    const workspace = new RecordingWorkspace();
    await workspace.replaceTree((tx) => extractArchive(good, tx));
    const before = workspace.committed;
    expect(await caught(workspace.replaceTree((tx) => extractArchive(bad, tx)))).toMatchObject({ code: "E_ARCHIVE_CHECKSUM", data: { entry: "files/a", reason: "sha256" } });
    expect(workspace.committed).toBe(before);
  });

  it("creates the manifest's empty directories", async () => {
    const path = await pythonArchive("dirs.zip", [["files/a/b.txt", "1", 0o100644]], manifest({ directories: ["a", "empty/nested"] }));
    const tx = new RecordingTransaction();
    const summary = await extractArchive(path, tx);
    expect(tx.calls).toEqual(["mkdir empty/nested", "createFile a/b.txt"]);
    expect(summary.directoryCount).toBe(1);
  });
});

describe("extractArchive: large entries are streamed and checked", () => {
  const big = Buffer.from(Array.from({ length: 300_000 }, (_, i) => `row ${i * 104729} of a big file\n`).join(""));

  it("round-trips a file larger than the whole-read threshold", async () => {
    const path = nodePath.join(tempDir(), "big.fs.zip");
    await writeArchive(path, memorySource([{ path: "big.txt", content: big }]));
    const tx = new RecordingTransaction();
    await extractArchive(path, tx);
    expect(Buffer.from(tx.files().get("big.txt")?.data ?? []).equals(big)).toBe(true);
  });

  it("fails on a CRC mismatch in a streamed entry, naming it", async () => {
    const path = nodePath.join(tempDir(), "bigcrc.fs.zip");
    await writeArchive(path, memorySource([{ path: "big.txt", content: big }]));
    await patchCrc(path, "files/big.txt", 0x12345678);
    expect(await caught(extractArchive(path, new RecordingTransaction()))).toMatchObject({ code: "E_ARCHIVE_CHECKSUM", data: { entry: "files/big.txt", reason: "crc" } });
  });
});

describe("extractArchive: target errors and progress", () => {
  it("passes the transaction's own errors through and wraps foreign ones with the entry", async () => {
    const path = nodePath.join(tempDir(), "t.fs.zip");
    await writeArchive(path, memorySource([{ path: "a", content: "1" }]));
    const failing = (error: Error): TreeTransaction => ({
      mkdir: async () => undefined,
      createFile: async () => {
        throw error;
      },
    });
    const full = new NoSpaceError("a", "No space left on device");
    expect(await caught(extractArchive(path, failing(full)))).toBe(full);
    const wrapped = await caught(extractArchive(path, failing(new Error("boom"))));
    expect(wrapped).toBeInstanceOf(StorageIOError);
    expect(wrapped.data).toMatchObject({ entry: "files/a", path: "a" });
  });

  it("reports progress per file and returns the summary", async () => {
    const path = nodePath.join(tempDir(), "p.fs.zip");
    await writeArchive(path, memorySource([{ path: "a", content: "12" }, { path: "b", content: "345" }, { path: "d", content: null }]));
    const progress: { files: number; bytes: number }[] = [];
    const summary = await extractArchive(path, new RecordingTransaction(), { onProgress: (p) => progress.push(p) });
    expect(progress).toEqual([{ files: 1, bytes: 2 }, { files: 2, bytes: 5 }]);
    expect(summary).toEqual({ archivePath: path, fileCount: 2, totalBytes: 5, directoryCount: 1, skipped: [] });
  });

  it("throws ENOENT for a missing archive", async () => {
    expect(await caught(extractArchive(nodePath.join(tempDir(), "missing.zip"), new RecordingTransaction()))).toBeInstanceOf(FileNotFoundError);
  });
});

describe("extractArchive: the root-metadata variant", () => {
  it("imports fszip-pr633 with its files at the workspace root", async () => {
    const tx = new RecordingTransaction();
    const summary = await extractArchive(FIXTURE, tx);
    expect(summary).toMatchObject({ fileCount: 18, totalBytes: 177839 });
    expect(tx.files().has("deep/a/b/c/d/e/leaf.txt")).toBe(true);
    expect(tx.files().has("_wink_metadata.json")).toBe(false);
    expect(tx.files().get("notes/empty.txt")?.data.length).toBe(0);
  });
});

describe("extractArchive: errors are ArchiveErrors naming the archive", () => {
  it("adds the archive path to entry errors too", async () => {
    const path = await pythonArchive("bad.zip", [["files/../x", "1", 0o100644]], manifest());
    const error = await caught(extractArchive(path, new RecordingTransaction()));
    expect(error).toBeInstanceOf(ArchiveError);
    expect(error.data).toMatchObject({ entry: "files/../x", archive: path });
  });
});
