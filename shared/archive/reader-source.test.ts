// An archive read through a byte source (a remote object's ranges) is checked exactly as a
// file is: the same answers and the same refusals, over the whole security corpus, with only
// the end record, the central directory and the members asked for read.
import { readdir, stat } from "node:fs/promises";
import nodePath from "node:path";
import { describe, expect, it } from "vitest";
import { securityFixture } from "../../fixtures/paths.js";
import { Source, createLocalDriver } from "../remote/index.js";
import { openArchive, openArchiveSource, type ArchiveReader } from "./reader.node.js";

const ZIPS = securityFixture("zips");

/** What a reader shows of an archive: its files and manifest, or the error that refused it; each file's content or refusal. */
async function outcome(open: () => Promise<ArchiveReader>): Promise<unknown> {
  let reader: ArchiveReader;
  try {
    reader = await open();
  } catch (error) {
    return { refused: (error as { code?: string }).code, message: (error as Error).message };
  }
  try {
    const manifest = await reader.readManifest().then(
      (check) => ({ manifest: check.manifest, warnings: check.warnings }),
      (error: unknown) => ({ refused: (error as { code?: string }).code }),
    );
    const files: unknown[] = [];
    for (const file of reader.files) {
      files.push([
        file.path,
        await reader.readFile(file.path).then(
          (bytes) => Buffer.from(bytes).toString("base64"),
          (error: unknown) => (error as { code?: string }).code,
        ),
      ]);
    }
    return { variant: reader.variant, manifest, files };
  } finally {
    await reader.close();
  }
}

describe("openArchiveSource", () => {
  it("answers and refuses every archive of the security corpus as openArchive does", async () => {
    const names = (await readdir(ZIPS)).filter((name) => name.endsWith(".zip"));
    expect(names.length).toBeGreaterThan(30);
    const source = new Source(createLocalDriver({ root: ZIPS }));
    for (const name of names) {
      const path = nodePath.join(ZIPS, name);
      const expected = await outcome(() => openArchive(path, { deferManifest: true }));
      const actual = await outcome(async () => {
        const reader = await source.open(name, { tail: 128 * 1024 });
        return openArchiveSource(path, { size: reader.size, read: (position, length) => reader.read(position, length) }, { deferManifest: true });
      });
      expect(actual, name).toEqual(expected);
    }
  });

  it("reads the end record, the directory and the member asked for, not the archive", async () => {
    const name = "55-many-entries.zip";
    const size = (await stat(nodePath.join(ZIPS, name))).size;
    const source = new Source(createLocalDriver({ root: ZIPS }));
    const reader = await source.open(name, { tail: 64 * 1024 });
    let closed = 0;
    const archive = await openArchiveSource(name, { size: reader.size, read: (position, length) => reader.read(position, length), close: async () => void closed++ }, { deferManifest: true });
    const opened = source.stats.bytesReceived;
    // The directory of its entries is most of it: the end record and the directory, nothing before them.
    expect(opened).toBeLessThan(size);
    const first = archive.files[0];
    expect(first).toBeDefined();
    await archive.readFile(first?.path as string);
    expect(source.stats.bytesReceived - opened).toBeLessThanOrEqual(64 * 1024);
    expect(archive.fileStats).toEqual({ size, mtimeMs: 0, dev: 0, ino: 0 });
    await archive.close();
    await archive.close();
    expect(closed).toBe(1);
  });
});
