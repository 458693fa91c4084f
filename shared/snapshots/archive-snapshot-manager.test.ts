import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { InvalidArgumentError, SnapshotNotFoundError, SnapshotRestoreError } from "../errors.js";
import { HostFilesystem } from "../filesystem/host/host-filesystem.js";
import { InMemoryFilesystem } from "../filesystem/memory/in-memory-filesystem.js";
import type { Filesystem } from "../filesystem/protocol.js";
import { ArchiveSnapshotManager } from "./archive-snapshot-manager.js";
import { TempDirs } from "../filesystem/host/snapshots/snapshot.test-support.js";

const temps = new TempDirs();
afterEach(() => temps.removeAll());

const backends: [string, () => Filesystem][] = [
  ["memory", () => new InMemoryFilesystem()],
  ["host", () => new HostFilesystem({ root: temps.make("ws-"), stateDir: temps.make("state-"), durable: false })],
];

describe.each(backends)("ArchiveSnapshotManager over the %s backend", (_name, makeFilesystem) => {
  it("snapshots, rolls back to any snapshot, and lists them by creation time", async () => {
    const fs = makeFilesystem();
    const dir = temps.make("archives-");
    const snapshots = new ArchiveSnapshotManager(fs, dir);
    expect(snapshots.filesystem).toBe(fs);
    await fs.write("file.txt", "v1");
    await fs.write("src/main.py", "print('hello')");
    const s1 = await snapshots.snapshot("s1");
    expect(s1).toMatchObject({ snapshotId: "s1", archivePath: path.join(dir, "s1.fs.zip"), fileCount: 2, totalBytes: 16 });
    // Two sizes, named apart: totalBytes is the manifest's total_bytes (the files' bytes, as a
    // FilesystemSnapshotRef's total_bytes), archiveBytes the archive's own size (what the vfs
    // spec's manager put in total_bytes: archive_path.stat().st_size).
    expect(s1.archiveBytes).toBe(statSync(s1.archivePath).size);
    const manifest = JSON.parse(execFileSync("unzip", ["-p", s1.archivePath, "manifest.json"], { encoding: "utf8" })) as { total_bytes: number };
    expect(s1.totalBytes).toBe(manifest.total_bytes);
    // The archive is a real ZIP in the shared format.
    execFileSync("unzip", ["-tq", s1.archivePath]);
    await fs.write("file.txt", "v2");
    await fs.delete("src", { recursive: true });
    await snapshots.snapshot("s2");
    await fs.write("file.txt", "v3");
    await fs.write("extra.txt", "x");

    expect(await snapshots.rollback("s1")).toBe(2);
    expect((await fs.read("file.txt")).content).toBe("v1");
    expect((await fs.read("src/main.py")).content).toBe("print('hello')");
    expect(await fs.exists("extra.txt")).toBe(false);
    expect(await snapshots.rollback("s2")).toBe(1);
    expect((await fs.read("file.txt")).content).toBe("v2");
    expect(await fs.exists("src")).toBe(false);
    expect(snapshots.list().map((info) => info.snapshotId)).toEqual(["s1", "s2"]);
    expect(snapshots.get("s1")).toEqual(s1);
    expect(snapshots.get("nope")).toBeNull();
  });

  it("restores an archive from elsewhere into this backend, and another backend's archive too", async () => {
    const source = new InMemoryFilesystem();
    await source.write("README.md", "# Project");
    await source.mkdir("empty/dir");
    const archive = path.join(temps.make("exchange-"), "session.fs.zip");
    await source.exportArchive(archive);
    const fs = makeFilesystem();
    await fs.write("stale.txt", "x");
    const snapshots = new ArchiveSnapshotManager(fs, temps.make("archives-"));
    expect(await snapshots.restore(archive)).toBe(1);
    expect((await fs.read("README.md")).content).toBe("# Project");
    expect(await fs.exists("empty/dir")).toBe(true);
    expect(await fs.exists("stale.txt")).toBe(false);
  });

  it("fails clearly for an unknown id, a bad archive, and a bad id; the state is unchanged", async () => {
    const fs = makeFilesystem();
    await fs.write("keep.txt", "keep");
    const dir = temps.make("archives-");
    const snapshots = new ArchiveSnapshotManager(fs, dir);
    await expect(snapshots.rollback("missing")).rejects.toBeInstanceOf(SnapshotNotFoundError);
    const bogus = path.join(dir, "bogus.fs.zip");
    writeFileSync(bogus, "this is not a zip file");
    const restoring = snapshots.restore(bogus);
    await expect(restoring).rejects.toBeInstanceOf(SnapshotRestoreError);
    await expect(restoring).rejects.toThrow(/Failed to restore snapshot .*bogus\.fs\.zip/);
    await expect(snapshots.restore(path.join(dir, "absent.fs.zip"))).rejects.toBeInstanceOf(SnapshotRestoreError);
    expect(() => snapshots.snapshot("../escape")).toThrow(InvalidArgumentError);
    expect(() => snapshots.snapshot("")).toThrow(InvalidArgumentError);
    expect((await fs.read("keep.txt")).content).toBe("keep");
  });

  it("replaces a snapshot taken again under the same id, and deletes snapshots with their archives", async () => {
    const fs = makeFilesystem();
    const snapshots = new ArchiveSnapshotManager(fs, temps.make("archives-"));
    await fs.write("a.txt", "1");
    const first = await snapshots.snapshot("turn-1");
    await fs.write("a.txt", "2");
    await snapshots.snapshot("turn-1");
    await fs.write("a.txt", "3");
    await snapshots.rollback("turn-1");
    expect((await fs.read("a.txt")).content).toBe("2");
    expect(snapshots.list()).toHaveLength(1);
    expect(await snapshots.delete("turn-1")).toBe(true);
    expect(existsSync(first.archivePath)).toBe(false);
    expect(await snapshots.delete("turn-1")).toBe(false);
    await expect(snapshots.rollback("turn-1")).rejects.toBeInstanceOf(SnapshotNotFoundError);
  });
});

describe("ArchiveSnapshotManager refuses to lose entries", () => {
  it("fails with the skipped paths instead of writing an archive without them", async () => {
    const root = temps.make("ws-");
    const fs = new HostFilesystem({ root, stateDir: temps.make("state-"), durable: false });
    await fs.write("kept.txt", "kept");
    symlinkSync("kept.txt", path.join(root, "link"));
    const dir = temps.make("archives-");
    const snapshots = new ArchiveSnapshotManager(fs, dir);
    await expect(snapshots.snapshot("s1")).rejects.toMatchObject({ code: "E_SNAPSHOT_CREATE", message: expect.stringMatching(/link \(symbolic link\).*git, copy or reflink/) });
    expect(readdirSync(dir)).toEqual([]);
    expect(snapshots.get("s1")).toBeNull();
  });
});
