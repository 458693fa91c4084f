/** Conformance items specific to the host backend (3.1, 3.2, 3.3, 3.10 and "Host writer specifics"). */
import * as fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { HostFilesystem } from "./host-filesystem.js";
import { listDir, makeTempDir, mountTmpfs, unmount } from "./host.test-support.js";

const cleanup: string[] = [];
const mounts: string[] = [];
let base: string;
let root: string;
let host: HostFilesystem;

beforeEach(async () => {
  base = await makeTempDir("wink-host-fs-");
  cleanup.push(base);
  root = path.join(base, "ws");
  await fs.promises.mkdir(root);
  host = new HostFilesystem({ root, stateDir: path.join(base, "state") });
});
afterEach(async () => {
  for (const dir of mounts.splice(0)) await unmount(dir);
});
afterAll(async () => {
  for (const dir of cleanup) await fs.promises.rm(dir, { recursive: true, force: true });
});

const temps = (): string[] => listDir(root).filter((name) => name.startsWith(".wink-tmp-"));

describe("HostFilesystem", () => {
  it("root equals the constructor string; escapes are EACCES 'escapes root' and exists() is false", async () => {
    const given = `${root}/./`;
    expect(new HostFilesystem({ root: given }).root).toBe(given);
    expect(host.readOnly).toBe(false);
    expect(await host.exists("../etc/passwd")).toBe(false);
    await expect(host.read("../etc/passwd")).rejects.toMatchObject({ code: "EACCES", message: expect.stringMatching(/escapes root/) });
    await expect(host.write("../x", "x")).rejects.toMatchObject({ code: "EACCES" });
    await expect(host.delete(".")).rejects.toMatchObject({ code: "EACCES", message: expect.stringMatching(/Cannot delete root/) });
    expect(fs.existsSync(path.join(base, "x"))).toBe(false);
  });

  it("refuses a missing root clearly", async () => {
    const missing = new HostFilesystem({ root: path.join(base, "nope") });
    await expect(missing.read("a")).rejects.toMatchObject({ code: "ENOENT", message: expect.stringMatching(/Root directory does not exist/) });
  });

  it("writer: overwrite commits atomically on close, abort keeps the original, no temp left behind", async () => {
    await host.write("f.txt", "original");
    const writer = await host.openWrite("f.txt");
    await writer.write("new ");
    await writer.write("bytes");
    expect(fs.readFileSync(path.join(root, "f.txt"), "utf8")).toBe("original");
    await writer.close();
    expect(fs.readFileSync(path.join(root, "f.txt"), "utf8")).toBe("new bytes");
    const aborted = await host.openWrite("f.txt");
    await aborted.write("half");
    await aborted.abort();
    expect(fs.readFileSync(path.join(root, "f.txt"), "utf8")).toBe("new bytes");
    expect(temps()).toEqual([]);
  });

  it("writer: create fails if the file appears while the writer is open; append writes in place", async () => {
    const writer = await host.openWrite("c.txt", { mode: "create" });
    await writer.write("mine");
    fs.writeFileSync(path.join(root, "c.txt"), "theirs");
    await expect(writer.close()).rejects.toMatchObject({ code: "EEXIST" });
    expect(fs.readFileSync(path.join(root, "c.txt"), "utf8")).toBe("theirs");
    const inode = fs.statSync(path.join(root, "c.txt")).ino;
    const result = await host.write("c.txt", "+more", { mode: "append" });
    expect(result.bytesWritten).toBe(5);
    expect(fs.statSync(path.join(root, "c.txt")).ino).toBe(inode);
    expect(fs.readFileSync(path.join(root, "c.txt"), "utf8")).toBe("theirs+more");
  });

  it("writer: a disk-full failure on close removes the temp file and keeps the existing file", async () => {
    await mountTmpfs(root, "64k");
    mounts.push(root);
    await host.write("keep.txt", "original");
    for (const mode of ["overwrite", "create", "append"] as const) {
      const writer = await host.openWrite(mode === "create" ? "fresh.txt" : "keep.txt", { mode });
      await writer.write(new Uint8Array(200 * 1024));
      await expect(writer.close(), mode).rejects.toMatchObject({ code: "ENOSPC" });
      expect(writer.closed).toBe(true);
    }
    expect(fs.readFileSync(path.join(root, "keep.txt"), "utf8")).toBe("original");
    expect(fs.existsSync(path.join(root, "fresh.txt"))).toBe(false);
    expect(temps()).toEqual([]);
  });

  it("reader: a directory is EISDIR naming it; size comes from the opened file", async () => {
    await host.mkdir("d");
    await expect(host.openRead("d")).rejects.toMatchObject({ code: "EISDIR", message: expect.stringContaining("d") });
    await host.write("s.txt", "hello world");
    const reader = await host.openRead("s.txt");
    expect(reader.size).toBe(11);
    expect(new TextDecoder().decode(await reader.read())).toBe("hello world");
    await reader.close();
  });
});
