import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { hasErrorCode } from "../../errors.js";
import type { WalkEntry } from "../driver.js";
import { HostDriver } from "./host-driver.js";
import { listDir, makeTempDir, mountTmpfs, remountReadOnly, unmount, writeTree } from "./host.test-support.js";

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const overwrite = { mode: "overwrite", createParents: true } as const;

const cleanup: string[] = [];
const mounts: string[] = [];
let base: string;
let root: string;
let driver: HostDriver;

beforeEach(async () => {
  base = await makeTempDir("wink-host-driver-");
  cleanup.push(base);
  root = path.join(base, "ws");
  await fs.promises.mkdir(root);
  driver = new HostDriver({ root, stateDir: path.join(base, "state") });
});

afterEach(async () => {
  for (const dir of mounts.splice(0)) await unmount(dir);
});

afterAll(async () => {
  for (const dir of cleanup) await fs.promises.rm(dir, { recursive: true, force: true });
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "resolved",
    (error: unknown) => (error as { code?: string }).code ?? String(error),
  );
}

const temps = (dir: string): string[] => listDir(dir).filter((name) => name.startsWith(".wink-tmp-"));

describe("reading and metadata", () => {
  it("reports the root string unchanged and stats without following links", async () => {
    const relative = new HostDriver({ root: path.relative(process.cwd(), root), stateDir: path.join(base, "state") });
    expect(relative.root).toBe(path.relative(process.cwd(), root));
    await writeTree(root, { "a.txt": "hello", "d/": null });
    fs.symlinkSync("a.txt", path.join(root, "link"));
    expect(await driver.stat("a.txt")).toMatchObject({ kind: "file", size: 5 });
    expect(await driver.stat("d")).toMatchObject({ kind: "directory", size: 0 });
    expect(await driver.stat("link")).toMatchObject({ kind: "symlink" });
    expect(await driver.stat("")).toMatchObject({ kind: "directory" });
    expect(await driver.stat("missing")).toBeNull();
    expect(await driver.stat("a.txt/below")).toBeNull();
    expect(await codeOf(driver.stat("link/x"))).toBe("EACCES");
  });

  it("reads whole files and ranges, bounded by the size", async () => {
    await writeTree(root, { "f.txt": "hello world" });
    expect(decode(await driver.readFile("f.txt"))).toBe("hello world");
    expect(decode(await driver.readFile("f.txt", { offset: 6, length: 100 }))).toBe("world");
    expect(decode(await driver.readFile("f.txt", { offset: 50, length: 5 }))).toBe("");
    expect(await codeOf(driver.readFile("missing"))).toBe("ENOENT");
    expect(await codeOf(driver.readFile(""))).toBe("EISDIR");
    await fs.promises.mkdir(path.join(root, "dir"));
    expect(await codeOf(driver.readFile("dir"))).toBe("EISDIR");
    expect(await codeOf(driver.readFile("f.txt/x"))).toBe("ENOTDIR");
  });

  it("refuses FIFOs, sockets and devices without blocking or opening them", async () => {
    execFileSync("mkfifo", [path.join(root, "fifo")]);
    execFileSync("mknod", [path.join(root, "zero-dev"), "c", "1", "5"]);
    const started = Date.now();
    for (const name of ["fifo", "zero-dev"]) {
      const error = await driver.readFile(name).catch((e: unknown) => e);
      expect(hasErrorCode(error, "EACCES")).toBe(true);
      expect(String(error)).toContain("not a regular file");
      expect(await codeOf(driver.writeFile(name, encode("x"), overwrite))).toBe("EACCES");
      expect(await codeOf(driver.writeFile(name, encode("x"), { mode: "append", createParents: false }))).toBe("EACCES");
    }
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await driver.list("")).sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: "fifo", kind: "other" },
      { name: "zero-dev", kind: "other" },
    ]);
  });

  it("lists kinds and walks with lstat semantics, never into linked directories", async () => {
    const outside = path.join(base, "outside");
    await writeTree(outside, { "secret.txt": "OUTSIDE-SECRET" });
    await writeTree(root, { "a/b/c.txt": "c", "a/e/": null, "top.txt": "t" });
    fs.symlinkSync(outside, path.join(root, "a/out"));
    fs.symlinkSync("b", path.join(root, "a/in"));
    const entries: WalkEntry[] = [];
    for await (const entry of driver.walk("")) entries.push(entry);
    expect(entries.map((e) => `${e.path}:${e.kind}`).sort()).toEqual([
      "a/b/c.txt:file",
      "a/b:directory",
      "a/e:directory",
      "a/in:symlink",
      "a/out:symlink",
      "a:directory",
      "top.txt:file",
    ]);
    const below: string[] = [];
    for await (const entry of driver.walk("a/b")) below.push(entry.path);
    expect(below).toEqual(["a/b/c.txt"]);
    expect(await codeOf((async () => { for await (const _ of driver.walk("a/out")) void _; })())).toBe("EACCES");
    expect(await codeOf(driver.list("a/in"))).toBe("EACCES");
    expect(await codeOf(driver.list("top.txt"))).toBe("ENOTDIR");
    expect(await codeOf(driver.list("missing"))).toBe("ENOENT");
  });
});

describe("writing", () => {
  it("overwrites atomically through a temp file + rename, keeping the mode, leaving no temp", async () => {
    await writeTree(root, { "s.sh": "old" });
    fs.chmodSync(path.join(root, "s.sh"), 0o750);
    const inodeBefore = fs.statSync(path.join(root, "s.sh")).ino;
    await driver.writeFile("s.sh", encode("new content"), overwrite);
    expect(fs.readFileSync(path.join(root, "s.sh"), "utf8")).toBe("new content");
    expect(fs.statSync(path.join(root, "s.sh")).ino).not.toBe(inodeBefore);
    expect(fs.statSync(path.join(root, "s.sh")).mode & 0o777).toBe(0o750);
    expect(temps(root)).toEqual([]);
  });

  it("creates with the requested mode, creating parents only when asked", async () => {
    await driver.writeFile("x/y/new.txt", encode("n"), { mode: "create", createParents: true, fileMode: 0o600 });
    expect(fs.statSync(path.join(root, "x/y/new.txt")).mode & 0o777).toBe(0o600);
    expect(await codeOf(driver.writeFile("x/y/new.txt", encode("again"), { mode: "create", createParents: true }))).toBe("EEXIST");
    expect(fs.readFileSync(path.join(root, "x/y/new.txt"), "utf8")).toBe("n");
    expect(await codeOf(driver.writeFile("no/parent.txt", encode("n"), { mode: "overwrite", createParents: false }))).toBe("ENOENT");
    expect(fs.existsSync(path.join(root, "no"))).toBe(false);
    expect(await codeOf(driver.writeFile("x", encode("n"), overwrite))).toBe("EISDIR");
    expect(await codeOf(driver.writeFile("x/y/new.txt/z", encode("n"), overwrite))).toBe("ENOTDIR");
    expect(temps(path.join(root, "x/y"))).toEqual([]);
  });

  it("create fails if the file appears between the check and the commit (hard-link commit)", async () => {
    // Make the name appear after our lstat: a FIFO-free way is to race many creates of one name.
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => codeOf(driver.writeFile("race.txt", encode(`writer ${i}`), { mode: "create", createParents: true }))));
    expect(results.filter((r) => r === "resolved")).toHaveLength(1);
    expect(results.filter((r) => r !== "resolved").every((r) => r === "EEXIST")).toBe(true);
    expect(fs.readFileSync(path.join(root, "race.txt"), "utf8")).toMatch(/^writer \d+$/);
    expect(temps(root)).toEqual([]);
  });

  it("appends in place (same inode), and creates the file when missing", async () => {
    await driver.writeFile("log.txt", encode("hello"), { mode: "append", createParents: true });
    const inode = fs.statSync(path.join(root, "log.txt")).ino;
    await driver.writeFile("log.txt", encode(" world"), { mode: "append", createParents: true });
    expect(fs.readFileSync(path.join(root, "log.txt"), "utf8")).toBe("hello world");
    expect(fs.statSync(path.join(root, "log.txt")).ino).toBe(inode);
  });

  it("never writes through a hard link to a file elsewhere (overwrite and append)", async () => {
    const outside = path.join(base, "outside.txt");
    fs.writeFileSync(outside, "OUTSIDE-SECRET");
    fs.linkSync(outside, path.join(root, "hard"));
    await driver.writeFile("hard", encode("replaced"), overwrite);
    expect(fs.readFileSync(outside, "utf8")).toBe("OUTSIDE-SECRET");
    expect(fs.readFileSync(path.join(root, "hard"), "utf8")).toBe("replaced");
    fs.rmSync(path.join(root, "hard"));
    fs.linkSync(outside, path.join(root, "hard"));
    await driver.writeFile("hard", encode("+more"), { mode: "append", createParents: true });
    expect(fs.readFileSync(outside, "utf8")).toBe("OUTSIDE-SECRET");
    expect(fs.readFileSync(path.join(root, "hard"), "utf8")).toBe("OUTSIDE-SECRET+more");
    expect(fs.statSync(path.join(root, "hard")).nlink).toBe(1);
  });

  it("refuses to write through symlinks of any kind, creating nothing outside", async () => {
    const outside = path.join(base, "outside");
    await writeTree(outside, { "secret.txt": "OUTSIDE-SECRET" });
    fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "file-link"));
    fs.symlinkSync(outside, path.join(root, "dir-link"));
    fs.symlinkSync(path.join(base, "wink-canary-dangling"), path.join(root, "dangling"));
    for (const mode of ["overwrite", "append", "create"] as const) {
      for (const target of ["file-link", "dir-link/secret.txt", "dir-link/new.txt", "dangling"]) {
        const code = await codeOf(driver.writeFile(target, encode("x"), { mode, createParents: true }));
        expect(code === "EACCES" || (mode === "create" && code === "EEXIST"), `${mode} ${target}: ${code}`).toBe(true);
      }
    }
    expect(await codeOf(driver.mkdir("dir-link/sub", { parents: true, existOk: true }))).toBe("EACCES");
    expect(listDir(outside)).toEqual(["secret.txt"]);
    expect(fs.readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("OUTSIDE-SECRET");
    expect(fs.existsSync(path.join(base, "wink-canary-dangling"))).toBe(false);
  });
});

describe("mkdir and remove", () => {
  it("creates directories with parents and existOk semantics", async () => {
    await driver.mkdir("a/b/c", { parents: true, existOk: false });
    expect(fs.statSync(path.join(root, "a/b/c")).isDirectory()).toBe(true);
    await driver.mkdir("a/b/c", { parents: true, existOk: true });
    expect(await codeOf(driver.mkdir("a/b/c", { parents: true, existOk: false }))).toBe("EEXIST");
    expect(await codeOf(driver.mkdir("x/y", { parents: false, existOk: true }))).toBe("ENOENT");
    await writeTree(root, { "f": "file" });
    expect(await codeOf(driver.mkdir("f", { parents: true, existOk: true }))).toBe("EEXIST");
    await driver.mkdir("", { parents: true, existOk: true });
  });

  it("removes files, links (not their targets), empty and (recursively) full directories, never the root", async () => {
    const outside = path.join(base, "outside");
    await writeTree(outside, { "dir/secret.txt": "OUTSIDE-SECRET" });
    await writeTree(root, { "a/b/c.txt": "c", "empty/": null, "f.txt": "f" });
    fs.symlinkSync(path.join(outside, "dir"), path.join(root, "a/link"));
    expect(await codeOf(driver.remove("a", { recursive: false }))).toBe("ENOTEMPTY");
    await driver.remove("empty", { recursive: false });
    await driver.remove("f.txt", { recursive: false });
    await driver.remove("a", { recursive: true });
    expect(listDir(root)).toEqual([]);
    expect(fs.readFileSync(path.join(outside, "dir/secret.txt"), "utf8")).toBe("OUTSIDE-SECRET");
    expect(await codeOf(driver.remove("", { recursive: true }))).toBe("EACCES");
    expect(await codeOf(driver.remove("missing", { recursive: true }))).toBe("ENOENT");
  });
});

describe("faults", () => {
  it("a write that hits ENOSPC leaves the original file and no temp file", async () => {
    await mountTmpfs(root, "64k");
    mounts.push(root);
    await writeTree(root, { "keep.txt": "original" });
    const big = new Uint8Array(256 * 1024).fill(1);
    const error = await driver.writeFile("keep.txt", big, overwrite).catch((e: unknown) => e);
    expect(hasErrorCode(error, "ENOSPC")).toBe(true);
    expect(String(error)).toContain("keep.txt");
    expect(fs.readFileSync(path.join(root, "keep.txt"), "utf8")).toBe("original");
    expect(await codeOf(driver.writeFile("new.bin", big, { mode: "create", createParents: true }))).toBe("ENOSPC");
    expect(fs.existsSync(path.join(root, "new.bin"))).toBe(false);
    expect(await codeOf(driver.writeFile("keep.txt", big, { mode: "append", createParents: true }))).toBe("ENOSPC");
    expect(fs.readFileSync(path.join(root, "keep.txt"), "utf8")).toBe("original");
    expect(temps(root)).toEqual([]);
  });

  it("a read-only file system gives EACCES naming the path, and nothing changes", async () => {
    await mountTmpfs(root, "1m");
    mounts.push(root);
    await writeTree(root, { "a.txt": "a" });
    await remountReadOnly(root, true);
    const error = await driver.writeFile("a.txt", encode("b"), overwrite).catch((e: unknown) => e);
    expect(hasErrorCode(error, "EACCES")).toBe(true);
    expect(String(error)).toMatch(/Read-only file system.*a\.txt/);
    expect(await codeOf(driver.remove("a.txt", { recursive: false }))).toBe("EACCES");
    expect(await codeOf(driver.mkdir("d", { parents: true, existOk: true }))).toBe("EACCES");
    expect(fs.readFileSync(path.join(root, "a.txt"), "utf8")).toBe("a");
  });
});

describe("replaceTree", () => {
  it("replaces the contents without replacing the root directory; a failing fill changes nothing", async () => {
    await writeTree(root, { "old.txt": "old", "d/x": "x" });
    const inode = fs.statSync(root).ino;
    await expect(
      driver.replaceTree(async (tx) => {
        const sink = await tx.createFile("partial.txt");
        await sink.write(encode("half"));
        throw new Error("archive entry corrupt");
      }),
    ).rejects.toThrow("archive entry corrupt");
    expect(listDir(root)).toEqual(["d", "old.txt"]);
    await driver.replaceTree(async (tx) => {
      await tx.mkdir("empty", 0o700);
      const sink = await tx.createFile("n/new.txt", 0o755);
      await sink.write(encode("new"));
      await sink.close();
    });
    expect(fs.statSync(root).ino).toBe(inode);
    expect(listDir(root)).toEqual(["empty", "n"]);
    expect(fs.statSync(path.join(root, "n/new.txt")).mode & 0o777).toBe(0o755);
    expect(listDir(path.join(base, "state"))).toEqual([]);
  });
});
