/**
 * The browser's archive reader (jszip) against the server's (`shared/archive`), archive by
 * archive over the security corpus and our own exports: both accept or both refuse, and
 * when both accept they list the same files with the same sizes and CRC-32s and read the
 * same bytes.
 */
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECURITY_FIXTURES, winkFixture } from "../../fixtures/paths.js";
import { openArchive } from "../../shared/archive/index.js";
import { InMemoryFilesystem } from "../../shared/filesystem/memory/index.js";
import { declaredEntryCount, openLocalArchive } from "./local-archive.js";

/**
 * Where the browser is stricter: it refuses the whole archive where the server opens it and
 * refuses only the bad entry later. Never the other way round.
 */
const BROWSER_STRICTER: Record<string, string> = {
  "42-cd-local-mismatch.zip": "jszip checks local headers against the central directory",
  "50-bomb-ratio.zip": "the declared ratio is refused at open, not at read",
};

type Verdict = { ok: false } | { ok: true; files: { path: string; size: number; crc: number | string }[]; contents: Map<string, string> };

async function serverVerdict(file: string): Promise<Verdict> {
  let reader;
  try {
    reader = await openArchive(file);
  } catch {
    return { ok: false };
  }
  try {
    const contents = new Map<string, string>();
    for (const entry of reader.files) {
      try {
        contents.set(entry.path, Buffer.from(await reader.readFile(entry.path)).toString("base64"));
      } catch {
        contents.set(entry.path, "<refused>");
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
  } catch {
    return { ok: false };
  }
  const listing = await archive.source.list();
  const contents = new Map<string, string>();
  for (const entry of listing) {
    try {
      contents.set(entry.path, Buffer.from(await archive.source.read(entry.path, 256 * 1024 * 1024)).toString("base64"));
    } catch {
      contents.set(entry.path, "<refused>");
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
  it("on our own export, the WINK root-metadata variant and every corpus archive", async () => {
    const corpus = (await readdir(path.join(SECURITY_FIXTURES, "zips"))).filter((name) => name.endsWith(".zip")).map((name) => path.join(SECURITY_FIXTURES, "zips", name));
    const files = [path.join(exported, "ours.fs.zip"), winkFixture("fszip-pr633/0f5f356f-9bfe-4e60-8222-b6a717dc8521.fs.zip"), ...corpus];
    const disagreements: string[] = [];
    let accepted = 0;
    for (const file of files) {
      const [server, browser] = await Promise.all([serverVerdict(file), browserVerdict(file)]);
      if (server.ok && !browser.ok && BROWSER_STRICTER[path.basename(file)] !== undefined) continue;
      if (server.ok !== browser.ok) {
        disagreements.push(`${path.basename(file)}: server ${server.ok ? "accepts" : "refuses"}, browser ${browser.ok ? "accepts" : "refuses"}`);
        continue;
      }
      if (!server.ok || !browser.ok) continue;
      accepted++;
      const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
      expect([...browser.files].sort(byPath), path.basename(file)).toEqual([...server.files].sort(byPath));
      expect(browser.contents, path.basename(file)).toEqual(server.contents);
    }
    expect(disagreements).toEqual([]);
    expect(accepted).toBeGreaterThanOrEqual(5);
  }, 120_000);

  it("reads the entry count from the end record, and refuses what is not a ZIP", () => {
    expect(() => declaredEntryCount(new Uint8Array(100), "junk.zip")).toThrow(/not a valid ZIP archive: no end-of-central-directory record/);
  });

  it("guards the entry count before jszip parses anything", async () => {
    const bytes = new Uint8Array(await readFile(path.join(SECURITY_FIXTURES, "zips", "55-many-entries.zip")));
    expect(declaredEntryCount(bytes, "x")).toBe(12_002);
    await expect(openLocalArchive("55-many-entries.zip", bytes, { maxEntries: 1000 })).rejects.toMatchObject({ code: "E_ARCHIVE_LIMIT" });
  });
});
