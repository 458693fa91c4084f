/**
 * The browser's archive reader against the server's (`shared/archive`), archive by archive
 * over the security corpus, our own cases and our own exports: one policy, one
 * implementation, so both refuse an archive with the same error code, or both open it, list
 * the same files with the same sizes and CRC-32s, and read each file as the same bytes or
 * refuse it with the same code. No exceptions.
 */
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARCHIVE_CASES } from "../../fixtures/security-extra/cases.js";
import { FIXTURES_DIR, SECURITY_FIXTURES, winkFixture } from "../../fixtures/paths.js";
import { openArchive } from "../../shared/archive/index.js";
import { InMemoryFilesystem } from "../../shared/filesystem/memory/index.js";
import { ArchiveError } from "../../shared/errors.js";
import { openLocalArchive } from "./local-archive.js";

type Verdict = { ok: false; code: string } | { ok: true; files: { path: string; size: number; crc: number | string }[]; contents: Map<string, string> };

const codeOf = (error: unknown): string => (error instanceof ArchiveError || (error instanceof Error && "code" in error) ? String((error as { code: unknown }).code) : "unknown");

async function serverVerdict(file: string): Promise<Verdict> {
  let reader;
  try {
    reader = await openArchive(file);
  } catch (error) {
    return { ok: false, code: codeOf(error) };
  }
  try {
    const contents = new Map<string, string>();
    for (const entry of reader.files) {
      try {
        contents.set(entry.path, Buffer.from(await reader.readFile(entry.path)).toString("base64"));
      } catch (error) {
        contents.set(entry.path, `<refused ${codeOf(error)}>`);
      }
    }
    return { ok: true, files: reader.files.map((entry) => ({ path: entry.path, size: entry.size, crc: entry.crc32 })), contents };
  } finally {
    await reader.close();
  }
}

async function browserVerdict(file: string): Promise<Verdict> {
  let archive;
  try {
    archive = await openLocalArchive(path.basename(file), new Uint8Array(await readFile(file)));
  } catch (error) {
    return { ok: false, code: codeOf(error) };
  }
  const listing = await archive.source.list();
  const contents = new Map<string, string>();
  for (const entry of listing) {
    try {
      contents.set(entry.path, Buffer.from(await archive.source.read(entry.path, 256 * 1024 * 1024)).toString("base64"));
    } catch (error) {
      contents.set(entry.path, `<refused ${codeOf(error)}>`);
    }
  }
  return { ok: true, files: listing.map((entry) => ({ path: entry.path, size: entry.size, crc: entry.fingerprint })), contents };
}

let exported: string;
beforeAll(async () => {
  exported = await mkdtemp(path.join(os.tmpdir(), "wink-local-archive-"));
  const fs = new InMemoryFilesystem();
  await fs.write("a/b/c.txt", "hello\n", { createParents: true });
  await fs.write("empty.txt", "", { createParents: true });
  await fs.mkdir("empty-dir", { parents: true });
  await fs.writeBytes("bin.dat", new Uint8Array([0, 1, 2, 255]), { createParents: true });
  await fs.exportArchive(path.join(exported, "ours.fs.zip"));
});
afterAll(async () => {
  await rm(exported, { recursive: true, force: true });
});

describe("openLocalArchive agrees with the server's reader", () => {
  it("on our own export, the WINK root-metadata variant, every corpus archive and every case of our own", async () => {
    const corpus = (await readdir(path.join(SECURITY_FIXTURES, "zips"))).filter((name) => name.endsWith(".zip")).map((name) => path.join(SECURITY_FIXTURES, "zips", name));
    const extra = ARCHIVE_CASES.map((item) => path.join(FIXTURES_DIR, "security-extra", "zips", item.file));
    const files = [path.join(exported, "ours.fs.zip"), winkFixture("fszip-pr633/0f5f356f-9bfe-4e60-8222-b6a717dc8521.fs.zip"), ...corpus, ...extra];
    const disagreements: string[] = [];
    let accepted = 0;
    for (const file of files) {
      const [server, browser] = await Promise.all([serverVerdict(file), browserVerdict(file)]);
      if (!server.ok || !browser.ok) {
        const verdict = (v: Verdict) => (v.ok ? "accepts" : `refuses (${v.code})`);
        if (server.ok !== browser.ok || (!server.ok && !browser.ok && server.code !== browser.code)) {
          disagreements.push(`${path.basename(file)}: server ${verdict(server)}, browser ${verdict(browser)}`);
        }
        continue;
      }
      accepted++;
      const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
      expect([...browser.files].sort(byPath), path.basename(file)).toEqual([...server.files].sort(byPath));
      expect(browser.contents, path.basename(file)).toEqual(server.contents);
    }
    expect(disagreements).toEqual([]);
    expect(accepted).toBeGreaterThanOrEqual(15);
  }, 120_000);

  it("gives each case of fixtures/security-extra its expected outcome (issue 14, finding 7)", async () => {
    for (const item of ARCHIVE_CASES) {
      const verdict = await browserVerdict(path.join(FIXTURES_DIR, "security-extra", "zips", item.file));
      if (!verdict.ok) {
        expect(verdict.code, item.file).toBe(item.open);
        continue;
      }
      expect("ok", item.file).toBe(item.open);
      const outcomes = Object.fromEntries([...verdict.contents].map(([file, content]) => [file, content.startsWith("<refused ") ? content.slice(9, -1) : "ok"]));
      expect(outcomes, item.file).toEqual(item.read ?? {});
    }
  });

  it("refuses what is not a ZIP, naming the archive", async () => {
    await expect(openLocalArchive("junk.zip", new Uint8Array(100))).rejects.toMatchObject({ code: "E_ARCHIVE_CORRUPT", data: { archive: "junk.zip" }, message: expect.stringContaining("no end-of-central-directory record") });
  });

  it("checks the entry count against the limit before parsing any record", async () => {
    const bytes = new Uint8Array(await readFile(path.join(SECURITY_FIXTURES, "zips", "55-many-entries.zip")));
    await expect(openLocalArchive("55-many-entries.zip", bytes, { maxEntries: 1000 })).rejects.toMatchObject({ code: "E_ARCHIVE_LIMIT", data: { limit: 1000, actual: 12_002 } });
  });
});
