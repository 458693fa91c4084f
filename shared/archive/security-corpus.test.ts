/**
 * Every archive of shared/security/zips/ against the outcome its README expects.
 * "Reject" means: an ArchiveError naming the entry and, when the defect is visible without
 * inflating, not a single call on the transaction; defects only inflation reveals (bad CRC,
 * lying sizes) fail mid-way and the replaceTree model keeps the previous state.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFile, readdir, writeFile } from "node:fs/promises";
import nodePath from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArchiveError } from "../errors.js";
import { DirectoryTransaction, RecordingTransaction, RecordingWorkspace, makeTempDir, python } from "./archive.test-support.js";
import { checkRelativePath, validateEntryName } from "./entry-names.js";
import { extractArchive, type ExtractArchiveOptions } from "./extract.node.js";
import { securityFixture } from "../../fixtures/paths.js";

const ZIPS = securityFixture("zips");
const zip = (name: string): string => nodePath.join(ZIPS, name);

let marker: string;
let cleanupMarker: () => Promise<void>;

beforeAll(async () => {
  const dir = await makeTempDir("wink-archive-corpus-");
  marker = nodePath.join(dir.path, "started");
  await writeFile(marker, "");
  cleanupMarker = dir.cleanup;
});

afterAll(async () => {
  // Canary convention: no file named *wink-canary* may appear under /tmp during these tests.
  // find's exit status is ignored: other processes' temporary directories may vanish mid-walk.
  const found = spawnSync("find", ["/tmp", "-xdev", "-newer", marker, "-name", "*wink-canary*"], { encoding: "utf8" }).stdout.trim();
  await cleanupMarker();
  expect(found).toBe("");
});

async function rejection(file: string, options: ExtractArchiveOptions = {}): Promise<{ error: ArchiveError; tx: RecordingTransaction }> {
  const tx = new RecordingTransaction();
  const error = await extractArchive(zip(file), tx, options).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, `${file} should be rejected`).toBeInstanceOf(ArchiveError);
  return { error: error as ArchiveError, tx };
}

/** Rejected before anything reaches the transaction. */
async function expectUpfrontRejection(file: string, code: string, entry: string | null, options: ExtractArchiveOptions = {}): Promise<ArchiveError> {
  const { error, tx } = await rejection(file, options);
  expect(error.code).toBe(code);
  if (entry === null) expect(error.data.archive).toBe(zip(file));
  else expect(error.entry).toBe(entry);
  expect(tx.calls).toEqual([]);
  return error;
}

const UPFRONT: ReadonlyArray<[file: string, code: string, entry: string | null]> = [
  ["10-slip-dotdot.zip", "E_ARCHIVE_ENTRY", "files/../../../../../../../../../../../../tmp/wink-canary-dotdot.txt"],
  ["11-slip-dotdot-internal.zip", "E_ARCHIVE_ENTRY", "files/sub/../../manifest.json"],
  ["12-slip-absolute.zip", "E_ARCHIVE_ENTRY", "/tmp/wink-canary-abs.txt"],
  ["14-slip-drive-unc.zip", "E_ARCHIVE_ENTRY", "C:/Windows/Temp/wink-canary-drive.txt"],
  ["15-name-nul.zip", "E_ARCHIVE_ENTRY", "files/nul\u0000byte.txt"],
  ["16-name-control-chars.zip", "E_ARCHIVE_ENTRY", "files/new\nline.txt"],
  ["18-name-long.zip", "E_ARCHIVE_LIMIT", `files/${"b".repeat(256)}`],
  ["19-name-special.zip", "E_ARCHIVE_ENTRY", "files/."],
  ["20-dup-exact.zip", "E_ARCHIVE_ENTRY", "files/ok.txt"],
  ["22-dup-file-vs-dir.zip", "E_ARCHIVE_ENTRY", "files/x"],
  ["23-dup-manifest.zip", "E_ARCHIVE_ENTRY", "manifest.json"],
  ["30-symlink-abs.zip", "E_ARCHIVE_ENTRY", "files/link"],
  ["31-symlink-rel.zip", "E_ARCHIVE_ENTRY", "files/up"],
  ["33-symlink-inside.zip", "E_ARCHIVE_ENTRY", "files/latest"],
  ["34-special-modes.zip", "E_ARCHIVE_ENTRY", "files/fifo"],
  ["40-encrypted.zip", "E_ARCHIVE_UNSUPPORTED", "files/zipcrypto.txt"],
  ["41-unsupported-method.zip", "E_ARCHIVE_UNSUPPORTED", "files/bzip2.bin"],
  ["42-cd-local-mismatch.zip", "E_ARCHIVE_CORRUPT", "files/harmless.txt"],
  ["44-stored-size-mismatch.zip", "E_ARCHIVE_CORRUPT", "files/stored.txt"],
  ["46-truncated.zip", "E_ARCHIVE_CORRUPT", null],
  ["47-prepended-junk.zip", "E_ARCHIVE_CORRUPT", null],
  ["48-appended-junk.zip", "E_ARCHIVE_CORRUPT", null],
  ["50-bomb-ratio.zip", "E_ARCHIVE_LIMIT", "files/zeros.bin"],
  ["52-bomb-overlap-quoted.zip", "E_ARCHIVE_CORRUPT", "files/bomb/0000"],
  ["56-zip64-eocd-huge-count.zip", "E_ARCHIVE_CORRUPT", null],
  ["58-zip64-missing-extra.zip", "E_ARCHIVE_CORRUPT", "files/noextra.bin"],
  ["59-zip64-cd-offset-out-of-range.zip", "E_ARCHIVE_CORRUPT", null],
  ["60-manifest-missing.zip", "E_ARCHIVE_MANIFEST", "manifest.json"],
  ["61-manifest-invalid-json.zip", "E_ARCHIVE_MANIFEST", "manifest.json"],
  ["64-manifest-huge-numbers.zip", "E_ARCHIVE_MANIFEST", "manifest.json"],
  ["70-git-poison.zip", "E_ARCHIVE_ENTRY", "files/.git/config"],
];

/** The raw entry names of an archive as Python's zipfile lists them (bytes as hex, so NUL survives). */
async function rawNames(file: string): Promise<string[]> {
  const out = await python(
    "import sys,zipfile\nfor i in zipfile.ZipFile(sys.argv[1]).infolist(): print(i.orig_filename.encode('utf-8','surrogateescape').hex())",
    [zip(file)],
  );
  return out.trim().split("\n").map((hex) => Buffer.from(hex, "hex").toString("utf8"));
}

describe("security corpus: archives rejected before any write", () => {
  it("covers every archive of the corpus", async () => {
    const covered = new Set([...UPFRONT.map(([file]) => file), "01-valid-baseline.zip", "02-valid-zip64-everything.zip", "04-valid-python-zipfile.zip",
      "21-dup-case.zip", "45-bad-crc-late-entry.zip", "51-bomb-lying-size.zip", "54-bomb-nested-42-style.zip", "55-many-entries.zip", "62-manifest-proto-pollution.zip"]);
    expect((await readdir(ZIPS)).filter((f) => f.endsWith(".zip")).sort()).toEqual([...covered].sort());
  });

  it.each(UPFRONT)("%s → %s naming the entry", async (file, code, entry) => {
    await expectUpfrontRejection(file, code, entry);
  });

  it("40: says encrypted entries are not supported, by name", async () => {
    const error = await expectUpfrontRejection("40-encrypted.zip", "E_ARCHIVE_UNSUPPORTED", "files/zipcrypto.txt");
    expect(error.message.toLowerCase()).toContain("encrypted entries are not supported: files/zipcrypto.txt");
  });

  it("41: names the method of the refused entry", async () => {
    const error = await expectUpfrontRejection("41-unsupported-method.zip", "E_ARCHIVE_UNSUPPORTED", "files/bzip2.bin");
    expect(error.data.method).toBe(12);
  });

  it("52: refuses the quoted-overlap bomb as overlapping entries", async () => {
    const error = await expectUpfrontRejection("52-bomb-overlap-quoted.zip", "E_ARCHIVE_CORRUPT", "files/bomb/0000");
    expect(error.data.reason).toBe("overlap");
    expect(error.message).toContain("possible zip bomb");
  });

  it("47/48: prepended and appended data are refused (one policy for both)", async () => {
    expect((await expectUpfrontRejection("47-prepended-junk.zip", "E_ARCHIVE_CORRUPT", null)).message).toContain("prepended");
    expect((await expectUpfrontRejection("48-appended-junk.zip", "E_ARCHIVE_CORRUPT", null)).message).toContain("appended");
  });

  it("18: the 255-byte segment is a valid name; 256 bytes, 600 levels and >4,096 bytes are not", async () => {
    const verdicts = (await rawNames("18-name-long.zip")).map((name) => {
      try {
        validateEntryName(name);
        return "ok";
      } catch (error) {
        return (error as ArchiveError).data.reason;
      }
    });
    expect(verdicts).toEqual(["ok", "ok", "ok", "segment-too-long", "too-deep", "path-too-long"]);
  });

  it("19: '.', '..', empty names and a directory carrying data are refused; option-like and Windows-reserved names are accepted", async () => {
    const names = await rawNames("19-name-special.zip");
    const refused = names.filter((name) => {
      try {
        validateEntryName(name);
        return false;
      } catch {
        return true;
      }
    });
    expect(refused).toEqual(["files/.", "files/..", "", "files/./dot.txt", "files//double.txt"]);
    for (const ok of ["-rf", "--upload-pack=touch wink-canary-opt", "CON", "aux.txt", "trailing.", "trailing ", "ads.txt:secret"]) {
      expect(() => checkRelativePath(ok)).not.toThrow();
    }
  });

  it("55: with an entry limit below 12,002 it is refused quickly", async () => {
    const started = performance.now();
    await expectUpfrontRejection("55-many-entries.zip", "E_ARCHIVE_LIMIT", null, { limits: { maxEntries: 12_001 } });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("21: with a case-folding target, Readme.md vs README.md is refused before writing", async () => {
    await expectUpfrontRejection("21-dup-case.zip", "E_ARCHIVE_ENTRY", "files/README.md", { caseInsensitive: true });
  });
});

describe("security corpus: defects found while inflating", () => {
  it.each([
    ["45-bad-crc-late-entry.zip", "files/data.bin", "crc"],
    ["51-bomb-lying-size.zip", "files/small.txt", "size"],
  ])("%s fails naming %s and leaves the workspace as it was", async (file, entry, reason) => {
    const workspace = new RecordingWorkspace();
    await workspace.replaceTree(async (tx) => tx.mkdir("previous-state"));
    const before = workspace.committed;
    const error = await workspace.replaceTree((tx) => extractArchive(zip(file), tx)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ArchiveError);
    expect((error as ArchiveError).code).toBe("E_ARCHIVE_CHECKSUM");
    expect((error as ArchiveError).entry).toBe(entry);
    expect((error as ArchiveError).data.reason).toBe(reason);
    expect(workspace.committed).toBe(before);
  });
});

/** Content of every file of an archive as Python's zipfile reads it (CRC-checked by Python). */
async function pythonContents(file: string, prefix = "files/"): Promise<Map<string, Buffer>> {
  const out = await python(
    "import sys,zipfile,json\nz=zipfile.ZipFile(sys.argv[1])\nprint(json.dumps({i.filename: z.read(i).hex() for i in z.infolist() if not i.is_dir()}))",
    [zip(file)],
  );
  const parsed = JSON.parse(out) as Record<string, string>;
  return new Map(
    Object.entries(parsed)
      .filter(([name]) => name.startsWith(prefix))
      .map(([name, hex]) => [name.slice(prefix.length), Buffer.from(hex, "hex")]),
  );
}

describe("security corpus: archives accepted", () => {
  it.each(["01-valid-baseline.zip", "02-valid-zip64-everything.zip", "04-valid-python-zipfile.zip"])("%s imports every file, the exec bit and the empty directory", async (file) => {
    const tx = new RecordingTransaction();
    const summary = await extractArchive(zip(file), tx);
    const expected = await pythonContents(file);
    const files = tx.files();
    expect([...files.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [path, data] of expected) expect(Buffer.from((files.get(path) as { data: Uint8Array }).data).equals(data)).toBe(true);
    expect(tx.nodes.get("emptydir")?.kind).toBe("directory");
    expect(summary).toMatchObject({ fileCount: 6, totalBytes: 328, directoryCount: 1, skipped: [] });
    if (file !== "04-valid-python-zipfile.zip") expect(files.get("bin/run.sh")?.mode).toBe(0o755);
  });

  it("01 lands on disk byte for byte with its exec bit, through a directory transaction", async () => {
    const dir = await makeTempDir();
    try {
      await extractArchive(zip("01-valid-baseline.zip"), new DirectoryTransaction(dir.path));
      const { stdout } = { stdout: execFileSync("find", [dir.path, "-printf", "%P %y %m\n"], { encoding: "utf8" }) };
      const listing = stdout.trim().split("\n").sort();
      expect(listing).toContain("bin/run.sh f 755");
      expect(listing).toContain("emptydir d 755");
      expect(listing).toContain("unicode/café.txt f 644");
      const expected = await pythonContents("01-valid-baseline.zip");
      for (const [path, data] of expected) expect((await readFile(nodePath.join(dir.path, path))).equals(data)).toBe(true);
    } finally {
      await dir.cleanup();
    }
  });

  it("21: on a case-sensitive target both names import", async () => {
    const tx = new RecordingTransaction();
    await extractArchive(zip("21-dup-case.zip"), tx);
    expect([...tx.files().keys()].sort()).toEqual(["README.md", "Readme.md", "ok.txt"]);
  });

  it("54: nested zips import as opaque bytes, never recursed into", async () => {
    const tx = new RecordingTransaction();
    await extractArchive(zip("54-bomb-nested-42-style.zip"), tx);
    const expected = await pythonContents("54-bomb-nested-42-style.zip");
    expect([...tx.files().keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [path, data] of expected) expect(Buffer.from(tx.files().get(path)?.data ?? []).equals(data)).toBe(true);
    expect(Buffer.from(tx.files().get("nest/l3-0.zip")?.data ?? []).subarray(0, 2).toString()).toBe("PK");
  });

  it("55: with the default limits all 12,001 files import", async () => {
    const tx = new RecordingTransaction();
    const summary = await extractArchive(zip("55-many-entries.zip"), tx);
    expect(summary.fileCount).toBe(12_001);
    expect(tx.files().size).toBe(12_001);
  });

  it("62: manifest keys named __proto__/constructor are ignored and pollute nothing", async () => {
    const tx = new RecordingTransaction();
    await extractArchive(zip("62-manifest-proto-pollution.zip"), tx);
    expect([...tx.files().keys()]).toEqual(["ok.txt"]);
    const probe: Record<string, unknown> = {};
    expect(probe.polluted).toBeUndefined();
    expect(probe.isAdmin).toBeUndefined();
    expect(probe.polluted2).toBeUndefined();
  });

  it("70: with git metadata allowed, every file imports byte for byte and nothing runs", async () => {
    const dir = await makeTempDir();
    try {
      await extractArchive(zip("70-git-poison.zip"), new DirectoryTransaction(dir.path), { allowGitMetadata: true });
      const expected = await pythonContents("70-git-poison.zip");
      expect(expected.size).toBe(16);
      for (const [path, data] of expected) expect((await readFile(nodePath.join(dir.path, path))).equals(data)).toBe(true);
    } finally {
      await dir.cleanup();
    }
  });

  it("70: '.GIT' and '.git\\u200c' count as git metadata too", async () => {
    const names = await rawNames("70-git-poison.zip");
    for (const entry of ["files/.GIT/config", "files/.git\u200c/x", "files/nested/.git/HEAD"]) expect(names).toContain(entry);
    const { findGitMetadataSegment } = await import("./entry-names.js");
    expect(findGitMetadataSegment(".GIT/config")).toBe(".GIT");
    expect(findGitMetadataSegment(".git\u200c/x")).toBe(".git\u200c");
    expect(findGitMetadataSegment("nested/.git/HEAD")).toBe(".git");
    expect(findGitMetadataSegment(".gitattributes")).toBeNull();
  });
});
