/**
 * The snapshot part of the conformance suite (conformance 3.13 and the tiered-snapshots
 * spec): what every `SnapshotableFilesystem` does, whatever stores its snapshots — records,
 * exact restores, diffs, and the default retention of `max_snapshots = 10` with tagged
 * snapshots kept. A backend runs it by declaring `capabilities.snapshots`.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { FilesystemSnapshot, SnapshotableFilesystem } from "../snapshot-contract.js";
import { isSnapshotable } from "../snapshot-contract.js";
import type { Filesystem } from "../protocol.js";
import { READ_ENTIRE_FILE } from "../protocol.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every file and directory with its content, to compare whole states. */
async function state(fs: Filesystem): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const visit = async (dir: string): Promise<void> => {
    for (const entry of await fs.list(dir)) {
      if (entry.isDirectory) {
        out[`${entry.path}/`] = "";
        await visit(entry.path);
      } else {
        out[entry.path] = Buffer.from((await fs.readBytes(entry.path)).content).toString("base64");
      }
    }
  };
  await visit("");
  return out;
}

async function expectSnapshotError(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error, "expected a snapshot error, but the call succeeded").not.toBeNull();
  expect(String((error as { code?: unknown }).code)).toMatch(/^E_SNAPSHOT/);
}

export function describeSnapshotConformance(current: () => Filesystem): void {
  describe("3.13 snapshots", () => {
    const used: SnapshotableFilesystem[] = [];
    const snapshotable = (fs: Filesystem = current()): SnapshotableFilesystem => {
      expect(isSnapshotable(fs), "the backend declares snapshots but does not implement snapshot/restore/diff").toBe(true);
      const target = fs as SnapshotableFilesystem;
      used.push(target);
      return target;
    };

    afterEach(async () => {
      for (const fs of used.splice(0)) await fs.cleanup?.();
    });

    it("returns records with a UUID, the tag, file counts and the parent chain", async () => {
      const fs = snapshotable();
      await fs.write("a.txt", "hello");
      await fs.write("dir/b.txt", "world!");
      expect(fs.currentSnapshotId).toBeNull();
      const first = await fs.snapshot({ tag: "my-tag" });
      expect(first.snapshotId).toMatch(UUID);
      expect(first.tag).toBe("my-tag");
      expect([first.fileCount, first.totalBytes]).toEqual([2, 11]);
      expect(Number.isNaN(Date.parse(first.createdAt))).toBe(false);
      expect(first.parentId).toBeNull();
      const second = await fs.snapshot();
      expect(second.tag).toBeNull();
      expect(second.snapshotId).not.toBe(first.snapshotId);
      expect(second.parentId).toBe(first.snapshotId);
      expect(fs.currentSnapshotId).toBe(second.snapshotId);
      expect(JSON.parse(JSON.stringify(second))).toEqual(second);
    });

    it("restores exactly: files created later go, deleted files and empty directories come back", async () => {
      const fs = snapshotable();
      await fs.write("config.py", "DEBUG = True");
      await fs.write("a/b/c/file.txt", "deep");
      await fs.mkdir("empty");
      const before = await state(fs);
      const snapshot = await fs.snapshot({ tag: "initial" });
      await fs.write("config.py", "DEBUG = False");
      await fs.write("tests.py", "import pytest");
      await fs.delete("a", { recursive: true });
      await fs.delete("empty");
      await fs.restore(snapshot);
      expect(await state(fs)).toEqual(before);
      expect(fs.currentSnapshotId).toBe(snapshot.snapshotId);
      expect((await fs.read("config.py", { limit: READ_ENTIRE_FILE })).content).toBe("DEBUG = True");
    });

    it("restores several snapshots in any order, and writes after a restore leave the snapshot alone", async () => {
      const fs = snapshotable();
      await fs.write("file.txt", "v1");
      const v1 = await fs.snapshot();
      await fs.write("file.txt", "v2");
      await fs.write("extra.txt", "x");
      const v2 = await fs.snapshot();
      await fs.restore(v1);
      expect((await fs.read("file.txt")).content).toBe("v1");
      expect(await fs.exists("extra.txt")).toBe(false);
      await fs.write("file.txt", "changed after restore");
      await fs.restore(v2);
      expect((await fs.read("file.txt")).content).toBe("v2");
      await fs.restore(v1);
      expect((await fs.read("file.txt")).content).toBe("v1");
    });

    it("diffs two snapshots, and a snapshot with the current state", async () => {
      const fs = snapshotable();
      await fs.write("config.py", "DEBUG = True");
      await fs.write("app.py", "from config import DEBUG");
      await fs.write("old.txt", "going");
      const v1 = await fs.snapshot();
      await fs.write("config.py", "DEBUG = False");
      await fs.write("tests.py", "import pytest");
      await fs.delete("old.txt");
      const v2 = await fs.snapshot();
      expect(await fs.diff(v1, v2)).toEqual({ added: ["tests.py"], modified: ["config.py"], deleted: ["old.txt"], unchangedCount: 1 });
      await fs.write("later.txt", "new");
      expect(await fs.diff(v2)).toEqual({ added: ["later.txt"], modified: [], deleted: [], unchangedCount: 3 });
      expect(await fs.diff(v1, null)).toEqual({ added: ["later.txt", "tests.py"], modified: ["config.py"], deleted: ["old.txt"], unchangedCount: 1 });
    });

    it("keeps 10 snapshots by default (the spec's max_snapshots): the oldest untagged go, tagged ones stay and count", async () => {
      const fs = snapshotable();
      await fs.write("n.txt", "tagged");
      const tagged = await fs.snapshot({ tag: "keep" });
      const untagged: FilesystemSnapshot[] = [];
      for (let i = 1; i <= 11; i++) {
        await fs.write("n.txt", `v${i}`);
        untagged.push(await fs.snapshot());
      }
      // 12 taken: the tagged one and the 9 newest untagged fill the 10 slots.
      await fs.write("n.txt", "current");
      const before = await state(fs);
      for (const pruned of untagged.slice(0, 2)) {
        await expectSnapshotError(fs.restore(pruned));
        expect(await state(fs), "a refused restore leaves the workspace as it was").toEqual(before);
      }
      await fs.restore(untagged[2] as FilesystemSnapshot);
      expect((await fs.read("n.txt")).content).toBe("v3");
      await fs.restore(tagged);
      expect((await fs.read("n.txt")).content).toBe("tagged");
      await fs.restore(untagged[10] as FilesystemSnapshot);
      expect((await fs.read("n.txt")).content).toBe("v11");
    });
  });
}
