import { describe, expect, it } from "vitest";
import { FilesystemError, StorageIOError } from "../../errors.js";
import type { FileSink, WalkEntry } from "../driver.js";
import { MemoryDriver } from "./memory-driver.js";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (data: Uint8Array): string => new TextDecoder().decode(data);
const overwrite = { mode: "overwrite", createParents: true } as const;

async function expectCode(promise: Promise<unknown>, code: string, path?: string): Promise<void> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FilesystemError);
  expect((error as FilesystemError).code).toBe(code);
  if (path !== undefined) expect((error as FilesystemError).path).toBe(path);
}

async function collect(walk: AsyncIterable<WalkEntry>): Promise<WalkEntry[]> {
  const out: WalkEntry[] = [];
  for await (const entry of walk) out.push(entry);
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

describe("MemoryDriver files", () => {
  it("writes, reads and stats a file with default mode and times", async () => {
    const driver = new MemoryDriver();
    const before = Date.now();
    await driver.writeFile("a/b/file.txt", bytes("hello"), overwrite);
    expect(text(await driver.readFile("a/b/file.txt"))).toBe("hello");
    const stat = await driver.stat("a/b/file.txt");
    expect(stat).toMatchObject({ kind: "file", size: 5, mode: 0o644 });
    expect(stat?.mtimeMs).toBeGreaterThanOrEqual(before);
    expect(await driver.stat("a")).toMatchObject({ kind: "directory", size: 0, mode: 0o755 });
    expect(await driver.stat("")).toMatchObject({ kind: "directory" });
    expect(await driver.stat("missing")).toBeNull();
    expect(await driver.stat("a/b/file.txt/below")).toBeNull();
  });

  it("reads a byte range", async () => {
    const driver = new MemoryDriver();
    await driver.writeFile("f", bytes("hello world"), overwrite);
    expect(text(await driver.readFile("f", { offset: 6, length: 5 }))).toBe("world");
    expect(text(await driver.readFile("f", { offset: 0, length: 5 }))).toBe("hello");
    expect((await driver.readFile("f", { offset: 20, length: 5 })).byteLength).toBe(0);
  });

  it("copies bytes in and out so callers cannot change stored data", async () => {
    const driver = new MemoryDriver();
    const input = bytes("abc");
    await driver.writeFile("f", input, overwrite);
    input[0] = 0x7a;
    const read = await driver.readFile("f");
    read[1] = 0x7a;
    expect(text(await driver.readFile("f"))).toBe("abc");
    const buffer = Buffer.from("xyz");
    await driver.writeFile("g", buffer, overwrite);
    buffer[0] = 0x41;
    expect(text(await driver.readFile("g"))).toBe("xyz");
  });

  it("create refuses an existing file, overwrite replaces, append appends and creates", async () => {
    const driver = new MemoryDriver();
    await driver.writeFile("f", bytes("one"), { mode: "create", createParents: true });
    await expectCode(driver.writeFile("f", bytes("two"), { mode: "create", createParents: true }), "EEXIST", "f");
    await driver.writeFile("f", bytes("three"), overwrite);
    expect(text(await driver.readFile("f"))).toBe("three");
    await driver.writeFile("f", bytes("+4"), { mode: "append", createParents: true });
    expect(text(await driver.readFile("f"))).toBe("three+4");
    await driver.writeFile("new", bytes("x"), { mode: "append", createParents: true });
    expect(text(await driver.readFile("new"))).toBe("x");
  });

  it("keeps mode and birth time of an existing file on overwrite and append", async () => {
    const driver = new MemoryDriver();
    await driver.writeFile("run.sh", bytes("#!/bin/sh"), { ...overwrite, fileMode: 0o755 });
    const born = (await driver.stat("run.sh"))?.birthtimeMs;
    await driver.writeFile("run.sh", bytes("#!/bin/bash"), { ...overwrite, fileMode: 0o600 });
    await driver.writeFile("run.sh", bytes("\n"), { mode: "append", createParents: true });
    const stat = await driver.stat("run.sh");
    expect(stat?.mode).toBe(0o755);
    expect(stat?.birthtimeMs).toBe(born);
    expect(text(await driver.readFile("run.sh"))).toBe("#!/bin/bash\n");
  });

  it("reports ENOENT, ENOTDIR and EISDIR naming the path", async () => {
    const driver = new MemoryDriver();
    await driver.writeFile("dir/file", bytes("x"), overwrite);
    await expectCode(driver.readFile("missing"), "ENOENT", "missing");
    await expectCode(driver.readFile("dir"), "EISDIR", "dir");
    await expectCode(driver.readFile("dir/file/x"), "ENOTDIR", "dir/file/x");
    await expectCode(driver.writeFile("dir", bytes("x"), overwrite), "EISDIR", "dir");
    await expectCode(driver.writeFile("", bytes("x"), overwrite), "EISDIR", "");
    await expectCode(driver.writeFile("dir/file/x", bytes("x"), overwrite), "ENOTDIR", "dir/file/x");
    await expectCode(driver.writeFile("no/parent", bytes("x"), { mode: "overwrite", createParents: false }), "ENOENT", "no/parent");
    expect(await driver.stat("no")).toBeNull();
    await expectCode(driver.list("dir/file"), "ENOTDIR", "dir/file");
    await expectCode(driver.list("nope"), "ENOENT", "nope");
  });
});

describe("MemoryDriver directories", () => {
  it("lists entries with their kinds, including implied directories", async () => {
    const driver = new MemoryDriver();
    await driver.writeFile("dir1/subdir/a.txt", bytes("a"), overwrite);
    await driver.writeFile("dir1/other/b.txt", bytes("b"), overwrite);
    await driver.writeFile("dir1/c.txt", bytes("c"), overwrite);
    const entries = (await driver.list("dir1")).sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(entries).toEqual([
      { name: "c.txt", kind: "file" },
      { name: "other", kind: "directory" },
      { name: "subdir", kind: "directory" },
    ]);
    expect(await driver.list("")).toEqual([{ name: "dir1", kind: "directory" }]);
  });

  it("mkdir honours parents and existOk and refuses a file in the way", async () => {
    const driver = new MemoryDriver();
    await expectCode(driver.mkdir("a/b", { parents: false, existOk: false }), "ENOENT", "a/b");
    await driver.mkdir("a/b/c", { parents: true, existOk: false });
    expect((await driver.stat("a/b/c"))?.kind).toBe("directory");
    await driver.mkdir("a/b/c", { parents: true, existOk: true });
    await expectCode(driver.mkdir("a/b/c", { parents: true, existOk: false }), "EEXIST", "a/b/c");
    await driver.mkdir("a/single", { parents: false, existOk: false });
    await driver.writeFile("a/file", bytes("x"), overwrite);
    await expectCode(driver.mkdir("a/file", { parents: true, existOk: true }), "EEXIST", "a/file");
    await expectCode(driver.mkdir("a/file/x", { parents: true, existOk: true }), "ENOTDIR", "a/file/x");
    await driver.mkdir("", { parents: true, existOk: true });
    await expectCode(driver.mkdir("", { parents: true, existOk: false }), "EEXIST", "");
  });

  it("remove deletes files and directories, refusing non-empty ones unless recursive", async () => {
    const driver = new MemoryDriver();
    await driver.writeFile("a/b/c/file.txt", bytes("x"), overwrite);
    await driver.mkdir("empty", { parents: true, existOk: false });
    await driver.remove("empty", { recursive: false });
    expect(await driver.stat("empty")).toBeNull();
    await expectCode(driver.remove("a", { recursive: false }), "ENOTEMPTY", "a");
    await driver.remove("a/b/c/file.txt", { recursive: false });
    expect(await driver.stat("a/b/c")).not.toBeNull();
    await driver.writeFile("a/b/c/file.txt", bytes("x"), overwrite);
    await driver.remove("a", { recursive: true });
    expect(await driver.list("")).toEqual([]);
    await expectCode(driver.remove("a", { recursive: true }), "ENOENT", "a");
    await expectCode(driver.remove("", { recursive: true }), "EACCES", "");
  });

  it("walk yields every node strictly below a path with root-relative paths", async () => {
    const driver = new MemoryDriver();
    await driver.writeFile("src/a.ts", bytes("aa"), overwrite);
    await driver.writeFile("src/lib/b.ts", bytes("b"), { ...overwrite, fileMode: 0o755 });
    await driver.mkdir("src/empty", { parents: true, existOk: false });
    await driver.writeFile("top.txt", bytes(""), overwrite);
    const below = await collect(driver.walk("src"));
    expect(below.map((e) => [e.path, e.kind, e.size, e.mode])).toEqual([
      ["src/a.ts", "file", 2, 0o644],
      ["src/empty", "directory", 0, 0o755],
      ["src/lib", "directory", 0, 0o755],
      ["src/lib/b.ts", "file", 1, 0o755],
    ]);
    expect((await collect(driver.walk(""))).map((e) => e.path)).toEqual([
      "src",
      "src/a.ts",
      "src/empty",
      "src/lib",
      "src/lib/b.ts",
      "top.txt",
    ]);
    await expectCode(collect(driver.walk("top.txt")), "ENOTDIR", "top.txt");
    await expectCode(collect(driver.walk("gone")), "ENOENT", "gone");
  });

  it("a walk sees the tree as it was when it started, despite writes meanwhile", async () => {
    const driver = new MemoryDriver();
    for (let i = 0; i < 5; i++) await driver.writeFile(`d/f${i}`, bytes("x"), overwrite);
    const seen: string[] = [];
    for await (const entry of driver.walk("")) {
      seen.push(entry.path);
      if (seen.length === 1) {
        await driver.remove("d", { recursive: true });
        await driver.writeFile("later", bytes("y"), overwrite);
      }
    }
    expect(seen.sort()).toEqual(["d", "d/f0", "d/f1", "d/f2", "d/f3", "d/f4"]);
    expect((await driver.list("")).map((e) => e.name)).toEqual(["later"]);
  });
});

describe("MemoryDriver counters and versions", () => {
  it("keeps file count and total bytes on every directory through writes and removals", async () => {
    const driver = new MemoryDriver();
    await driver.writeFile("a/x", bytes("12345"), overwrite);
    await driver.writeFile("a/b/y", bytes("12"), overwrite);
    await driver.writeFile("z", bytes("1"), overwrite);
    expect(driver.currentVersion).toMatchObject({ fileCount: 3, totalBytes: 8 });
    await driver.writeFile("a/x", bytes("1"), overwrite);
    await driver.writeFile("a/b/y", bytes("345"), { mode: "append", createParents: true });
    expect(driver.currentVersion).toMatchObject({ fileCount: 3, totalBytes: 7 });
    expect(driver.currentVersion.children.get("a")).toMatchObject({ fileCount: 2, totalBytes: 6 });
    await driver.remove("a/b", { recursive: true });
    expect(driver.currentVersion).toMatchObject({ fileCount: 2, totalBytes: 2 });
  });

  it("a frozen version never changes and writes copy only the directories on their path", async () => {
    const driver = new MemoryDriver();
    await driver.writeFile("left/deep/a", bytes("a"), overwrite);
    await driver.writeFile("right/b", bytes("b"), overwrite);
    const frozen = driver.freezeVersion();
    const frozenLeft = frozen.children.get("left");
    await driver.writeFile("right/b", bytes("changed"), overwrite);
    await driver.writeFile("right/c", bytes("c"), overwrite);
    const live = driver.currentVersion;
    expect(live).not.toBe(frozen);
    expect(live.children.get("left")).toBe(frozenLeft);
    expect(live.children.get("right")).not.toBe(frozen.children.get("right"));
    expect(frozen.children.get("right")).toMatchObject({ fileCount: 1, totalBytes: 1 });
    expect(frozen).toMatchObject({ fileCount: 2, totalBytes: 2 });
    driver.restoreVersion(frozen);
    expect(text(await driver.readFile("right/b"))).toBe("b");
    expect(await driver.stat("right/c")).toBeNull();
    await driver.writeFile("right/b", bytes("again"), overwrite);
    expect(frozen.children.get("right")).toMatchObject({ totalBytes: 1 });
  });
});

describe("MemoryDriver.replaceTree", () => {
  it("swaps in the new tree only when the fill succeeds", async () => {
    const driver = new MemoryDriver();
    await driver.writeFile("old.txt", bytes("old"), overwrite);
    await driver.replaceTree(async (tx) => {
      await tx.mkdir("empty/dir", 0o700);
      const sink = await tx.createFile("src/run.sh", 0o755);
      await sink.write(bytes("#!/bin/"));
      await sink.write(bytes("sh"));
      await sink.close();
    });
    expect(await driver.stat("old.txt")).toBeNull();
    expect(text(await driver.readFile("src/run.sh"))).toBe("#!/bin/sh");
    expect((await driver.stat("src/run.sh"))?.mode).toBe(0o755);
    expect((await driver.stat("empty/dir"))?.mode).toBe(0o700);
    expect(driver.currentVersion).toMatchObject({ fileCount: 1, totalBytes: 9 });
  });

  it("a failed fill leaves the old tree exactly as it was", async () => {
    const driver = new MemoryDriver();
    await driver.writeFile("keep/me.txt", bytes("kept"), overwrite);
    const before = driver.currentVersion;
    const failure = new StorageIOError("bad", "archive entry broken");
    await expect(
      driver.replaceTree(async (tx) => {
        const sink = await tx.createFile("new.txt");
        await sink.write(bytes("new"));
        await sink.close();
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(driver.currentVersion).toBe(before);
    expect(text(await driver.readFile("keep/me.txt"))).toBe("kept");
    expect(await driver.stat("new.txt")).toBeNull();
  });

  it("refuses duplicates, files in the way and unclosed files", async () => {
    const driver = new MemoryDriver();
    await driver.writeFile("keep", bytes("k"), overwrite);
    await expectCode(
      driver.replaceTree(async (tx) => {
        await (await tx.createFile("a")).close();
        await tx.createFile("a");
      }),
      "EEXIST",
      "a",
    );
    await expectCode(
      driver.replaceTree(async (tx) => {
        await (await tx.createFile("a")).close();
        await tx.mkdir("a/b");
      }),
      "ENOTDIR",
      "a/b",
    );
    await expectCode(
      driver.replaceTree(async (tx) => {
        await tx.createFile("open.txt");
      }),
      "EIO",
      "open.txt",
    );
    expect(text(await driver.readFile("keep"))).toBe("k");
  });

  it("a transaction cannot be used after it finished", async () => {
    const driver = new MemoryDriver();
    const sinks: FileSink[] = [];
    await driver.replaceTree(async (tx) => {
      const sink = await tx.createFile("f");
      sinks.push(sink);
      await sink.close();
    });
    const [leaked] = sinks;
    expect(leaked).toBeDefined();
    await expectCode((leaked as FileSink).write(bytes("late")), "EIO", "f");
    expect((await driver.readFile("f")).byteLength).toBe(0);
  });
});
