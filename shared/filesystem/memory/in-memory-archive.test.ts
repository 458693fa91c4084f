import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WinkError } from "../../errors.js";
import { InMemoryFilesystem } from "./in-memory-filesystem.js";
import { observe } from "./memory.test-support.js";

describe("InMemoryFilesystem archive import", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  async function tempDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "wink-memory-"));
    dirs.push(dir);
    return dir;
  }

  it("round-trips files, modes and empty directories through a real archive", async () => {
    const source = new InMemoryFilesystem();
    await source.write("src/app.ts", "export {};\n");
    await source.writeBytes("bin/run.sh", new TextEncoder().encode("#!/bin/sh\n"), { fileMode: 0o755 });
    await source.mkdir("empty/nested");
    const archive = join(await tempDir(), "ws.fs.zip");
    await source.exportArchive(archive);
    const target = new InMemoryFilesystem();
    await target.write("stale.txt", "replaced by the import");
    await target.importArchive(archive);
    expect(await observe(target)).toEqual(await observe(source));
  });

  it("a failed import leaves the tree, and snapshots taken before it, exactly as they were", async () => {
    const fs = new InMemoryFilesystem();
    await fs.write("keep/me.txt", "kept");
    const snapshot = await fs.snapshot();
    await fs.write("after-snapshot.txt", "also kept");
    const before = await observe(fs);
    const dir = await tempDir();
    const good = join(dir, "good.fs.zip");
    const source = new InMemoryFilesystem();
    for (let i = 0; i < 20; i++) await source.write(`f${i}.txt`, `file ${i} `.repeat(50));
    await source.exportArchive(good);
    const bytes = await readFile(good);
    const truncated = join(dir, "truncated.fs.zip");
    await writeFile(truncated, bytes.subarray(0, Math.floor(bytes.byteLength / 2)));
    const garbage = join(dir, "garbage.fs.zip");
    await writeFile(garbage, "not a zip archive at all");
    for (const broken of [truncated, garbage]) {
      await expect(fs.importArchive(broken)).rejects.toBeInstanceOf(WinkError);
      expect(await observe(fs)).toEqual(before);
    }
    await fs.restore(snapshot);
    expect((await fs.read("keep/me.txt")).content).toBe("kept");
    expect(await fs.exists("after-snapshot.txt")).toBe(false);
  });
});
