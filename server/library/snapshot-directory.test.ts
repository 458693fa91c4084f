// The listing's two orders (by path, newest first) are sorted once per generation of the
// listing, as the run index asks for them after every run it reads: a change of the folder
// must still show in the next answer, and a caller's changes to an answer must not.
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeSessionRun } from "../failures.test-support.js";
import { cleanUp, tempDir } from "../server.test-support.js";
import { closeServedState, openServedState } from "./served-state.js";

afterEach(cleanUp);

/**
 * A run written now: a session file's listed time is the later of its ctime and mtime, so
 * runs written one after another are newest last (a pause keeps their times apart).
 */
async function writeRun(dir: string, name: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 20));
  await writeSessionRun(path.join(dir, name), `c0000000-0000-4000-8000-${name.replace(/\D/g, "").padStart(12, "0")}`, new Date(Date.UTC(2026, 10, 1)), [{ tool: "read_file", params: { path: "a.py" }, message: "ok", success: true, callId: "call_1" }]);
}

describe("the listing's orders", () => {
  it("follow files added, rewritten with a newer time and removed, and are the caller's own arrays", async () => {
    const dir = await tempDir();
    await writeRun(dir, "run1.jsonl");
    await writeRun(dir, "run2.jsonl");
    await writeRun(dir, "run3.jsonl");
    const served = await openServedState({ path: dir });
    try {
      const { directory } = served.state;
      const paths = (records: readonly { path: string }[]) => records.map((record) => record.path);
      expect(paths(directory.newestFirst())).toEqual(["run3.jsonl", "run2.jsonl", "run1.jsonl"]);

      // An answer changed by its caller leaves the next one as it was.
      directory.newestFirst().reverse();
      directory.files().splice(0);
      expect(paths(directory.newestFirst())).toEqual(["run3.jsonl", "run2.jsonl", "run1.jsonl"]);
      expect(paths(directory.files())).toEqual(["run1.jsonl", "run2.jsonl", "run3.jsonl"]);

      // run1 rewritten (another size, a later time), run0 added after it, run2 removed.
      await new Promise((resolve) => setTimeout(resolve, 20));
      await writeFile(path.join(dir, "run1.jsonl"), `${await readFile(path.join(dir, "run3.jsonl"), "utf8")}\n`);
      await writeRun(dir, "run0.jsonl");
      await rm(path.join(dir, "run2.jsonl"));
      await directory.refresh();
      expect(paths(directory.files())).toEqual(["run0.jsonl", "run1.jsonl", "run3.jsonl"]);
      expect(paths(directory.newestFirst())).toEqual(["run0.jsonl", "run1.jsonl", "run3.jsonl"]);
    } finally {
      await closeServedState(served);
    }
  });
});
