/**
 * The archive cases of fixtures/security-extra (issue 14's red-team findings and issue 18's
 * strict-ZIP rule) against the server's reader and import, with the outcome each one
 * expects; and what Python's zipfile and Info-ZIP's unzip make of them, which is why the
 * rule exists (they accept disagreeing copies that we refuse). The in-browser reader is held
 * to the same outcomes in web/api/local-archive.test.ts.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import nodePath from "node:path";
import { describe, expect, it } from "vitest";
import { ARCHIVE_CASES, expectJsonl, type ArchiveCase } from "../../fixtures/security-extra/cases.js";
import { FIXTURES_DIR } from "../../fixtures/paths.js";
import { ArchiveError, WinkError } from "../errors.js";
import { RecordingTransaction } from "./archive.test-support.js";
import { extractArchive } from "./extract.node.js";
import { openArchive } from "./reader.node.js";

const ZIPS = nodePath.join(FIXTURES_DIR, "security-extra", "zips");
const zip = (item: ArchiveCase): string => nodePath.join(ZIPS, item.file);
const codeOf = (error: unknown): string => (error instanceof WinkError ? error.code : `not a library error: ${String(error)}`);

describe("fixtures/security-extra", () => {
  it("holds exactly the archives cases.ts builds (regenerate with generate.ts)", async () => {
    for (const item of ARCHIVE_CASES) {
      expect(Buffer.from(await readFile(zip(item))).equals(Buffer.from(item.build())), item.file).toBe(true);
    }
    expect(await readFile(nodePath.join(FIXTURES_DIR, "security-extra", "expect.jsonl"), "utf8")).toBe(expectJsonl());
  });

  it.each(ARCHIVE_CASES.map((item) => [item.file, item] as const))("%s: the server's reader opens and reads it as expected", async (_file, item) => {
    const opened = await openArchive(zip(item)).then(
      (reader) => ({ reader, code: "ok" }),
      (error: unknown) => ({ reader: null, code: codeOf(error) }),
    );
    expect(opened.code, item.why).toBe(item.open);
    if (opened.reader === null) return;
    try {
      const outcomes: Record<string, string> = {};
      for (const file of opened.reader.files) {
        outcomes[file.path] = await opened.reader.readFile(file.path).then(
          () => "ok",
          (error: unknown) => codeOf(error),
        );
      }
      expect(outcomes, item.why).toEqual(item.read ?? {});
    } finally {
      await opened.reader.close();
    }
  });

  it.each(ARCHIVE_CASES.map((item) => [item.file, item] as const))("%s: import gives the expected outcome, all or nothing", async (_file, item) => {
    const tx = new RecordingTransaction();
    const error = await extractArchive(zip(item), tx).then(
      () => null,
      (e: unknown) => e,
    );
    if (item.import === "ok") {
      expect(error, item.why).toBeNull();
      expect(tx.files().size).toBe(Object.keys(item.read ?? {}).length);
      return;
    }
    expect(error, item.why).toBeInstanceOf(ArchiveError);
    expect((error as ArchiveError).code, item.why).toBe(item.import.code);
    if (item.import.entry === null) expect((error as ArchiveError).data.archive).toBe(zip(item));
    else expect((error as ArchiveError).entry).toBe(item.import.entry);
    // Every refusal here is visible without inflating: nothing reached the transaction.
    expect(tx.calls).toEqual([]);
  });

  it("Python's zipfile and Info-ZIP's unzip accept what they do (the differential the rule closes)", () => {
    const python = `import sys, zipfile
for path in sys.argv[1:]:
    try:
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                z.read(info.filename)
        print("reads")
    except Exception:
        print("refuses")`;
    const withOthers = ARCHIVE_CASES.filter((item) => item.others !== undefined);
    expect(withOthers.length).toBeGreaterThanOrEqual(15);
    const verdicts = execFileSync("python3", ["-c", python, ...withOthers.map(zip)], { encoding: "utf8" }).trim().split("\n");
    withOthers.forEach((item, index) => {
      if (item.others?.python !== undefined) expect(verdicts[index], `python on ${item.file}`).toBe(item.others.python);
      if (item.others?.unzip !== undefined) {
        const status = spawnSync("unzip", ["-tqq", zip(item)], { encoding: "utf8" }).status;
        expect(status === 0 ? "ok" : "error", `unzip -t on ${item.file}`).toBe(item.others.unzip);
      }
    });
    // The cases we refuse although both tools accept them: a disagreeing data descriptor, local
    // ZIP64 extra or surplus central ZIP64 value.
    const acceptedByBoth = withOthers.filter((item) => item.others?.python === "reads" && item.others.unzip === "ok" && item.open !== "ok").map((item) => item.file);
    expect(acceptedByBoth).toContain("90-cd-zip64-surplus-disagrees.zip");
  });
});
