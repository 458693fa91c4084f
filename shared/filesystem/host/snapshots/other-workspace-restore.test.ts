// A snapshot of one host workspace restored into another is refused (docs/errors.md,
// E_SNAPSHOT_INCOMPATIBLE), unless asked for by name; through the public entry.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HostFilesystem, SnapshotIncompatibleError } from "../../../index.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function workspace(file: string, content: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "wink-other-root-"));
  dirs.push(dir);
  await writeFile(path.join(dir, file), content);
  return dir;
}

describe("restoring a host snapshot of another workspace", () => {
  for (const strategy of ["git", "copy", "archive"] as const) {
    it(`is refused with E_SNAPSHOT_INCOMPATIBLE and leaves the target's files (${strategy})`, async () => {
      const rootA = await workspace("a.txt", "of A");
      const rootB = await workspace("b.txt", "of B");
      const store = await mkdtemp(path.join(os.tmpdir(), "wink-other-root-store-"));
      dirs.push(store);
      const a = new HostFilesystem({ root: rootA, snapshots: { strategy, gitDir: path.join(store, "a.git"), snapshotDir: path.join(store, "a") } });
      const b = new HostFilesystem({ root: rootB, snapshots: { strategy, gitDir: path.join(store, "b.git"), snapshotDir: path.join(store, "b") } });
      const taken = await a.snapshot();
      const failure = await b.restore(taken).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(SnapshotIncompatibleError);
      expect((failure as SnapshotIncompatibleError).code).toBe("E_SNAPSHOT_INCOMPATIBLE");
      expect((failure as Error).message).toContain("restoreIntoOtherWorkspace");
      expect(await readFile(path.join(rootB, "b.txt"), "utf8")).toBe("of B");

      await b.restore(taken, { restoreIntoOtherWorkspace: true });
      expect(await readFile(path.join(rootB, "a.txt"), "utf8")).toBe("of A");
    });
  }
});
