/**
 * openRegularFile and the readers built on it, on the host sandbox fixture's hostile
 * entries (escaping symlinks, a FIFO, /dev/zero, a parent directory that is a symlink): never
 * a read outside the root, never a wait on a FIFO.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openArchive } from "../archive/reader.node.js";
import { readSessionFile, scanSessionFile } from "../session/session-file.node.js";
import { openRegularFile, readRegularFile, readSmallRegularFileSync } from "./open-regular.node.js";

let base: string;
let root: string;

beforeAll(() => {
  base = mkdtempSync(path.join(os.tmpdir(), "wink-open-regular-"));
  root = path.join(base, "root");
  mkdirSync(path.join(root, "sub"), { recursive: true });
  mkdirSync(path.join(base, "outside"));
  writeFileSync(path.join(base, "outside", "secret.txt"), "OUTSIDE-SECRET\n");
  writeFileSync(path.join(root, "sub", "file.txt"), "inside\n");
  symlinkSync(path.join(base, "outside", "secret.txt"), path.join(root, "abs-file-out"));
  symlinkSync("sub/file.txt", path.join(root, "rel-inside"));
  symlinkSync(path.join(base, "outside"), path.join(root, "dir-out"));
  symlinkSync("/dev/zero", path.join(root, "zero"));
  execFileSync("mkfifo", [path.join(root, "fifo.jsonl")]);
  execFileSync("mkfifo", [path.join(root, "fifo.fs.zip")]);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

async function outcome(promise: Promise<{ handle: { close(): Promise<void> } }>): Promise<string> {
  try {
    const opened = await promise;
    await opened.handle.close();
    return "opened";
  } catch (error) {
    const { code, data } = error as { code?: string; data?: { reason?: string } };
    return `${code ?? "?"}${data?.reason === undefined ? "" : ` ${data.reason}`}`;
  }
}

describe("openRegularFile", () => {
  it("opens a regular file under the root and reports its fstat", async () => {
    const opened = await openRegularFile(path.join(root, "sub", "file.txt"), { root });
    try {
      expect(opened.stats.isFile()).toBe(true);
      expect(opened.stats.size).toBe(7);
      expect((await opened.handle.readFile()).toString()).toBe("inside\n");
    } finally {
      await opened.handle.close();
    }
  });

  it("refuses symlinks (in or out), FIFOs without waiting, devices, directories and paths through a linked parent", async () => {
    const started = Date.now();
    expect(await outcome(openRegularFile(path.join(root, "abs-file-out"), { root }))).toBe("EACCES symlink");
    expect(await outcome(openRegularFile(path.join(root, "rel-inside"), { root }))).toBe("EACCES symlink");
    expect(await outcome(openRegularFile(path.join(root, "zero"), { root }))).toBe("EACCES symlink");
    expect(await outcome(openRegularFile(path.join(root, "fifo.jsonl"), { root }))).toBe("EACCES not-regular");
    expect(await outcome(openRegularFile(path.join(root, "sub"), { root }))).toBe("EACCES not-regular");
    // The last component is a regular file, but a parent is a link out of the root: /proc/self/fd tells.
    expect(await outcome(openRegularFile(path.join(root, "dir-out", "secret.txt"), { root }))).toBe("EACCES outside-root");
    expect(await outcome(openRegularFile(path.join(root, "missing.txt"), { root }))).toBe("ENOENT");
    // Even when the caller names the file itself (follow), a FIFO is refused rather than waited on.
    expect(await outcome(openRegularFile(path.join(root, "fifo.jsonl"), { follow: true }))).toBe("EACCES not-regular");
    expect(await outcome(openRegularFile(path.join(root, "rel-inside"), { follow: true }))).toBe("opened");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("reads exactly the size it opened, and refuses more than maxBytes", async () => {
    expect((await readRegularFile(path.join(root, "sub", "file.txt"), { root, maxBytes: 7 })).bytes.toString()).toBe("inside\n");
    await expect(readRegularFile(path.join(root, "sub", "file.txt"), { root, maxBytes: 6 })).rejects.toMatchObject({ code: "EINVAL", data: { reason: "too-large" } });
  });
});

describe("readSmallRegularFileSync", () => {
  const sync = (file: string, options: Parameters<typeof readSmallRegularFileSync>[1]): string => {
    try {
      const read = readSmallRegularFileSync(file, options);
      return read === null ? "null" : read.bytes.toString();
    } catch (error) {
      const { code, data } = error as { code?: string; data?: { reason?: string } };
      return `${code ?? "?"}${data?.reason === undefined ? "" : ` ${data.reason}`}`;
    }
  };

  it("refuses what openRegularFile refuses, with the same reasons, on the calling thread", () => {
    const started = Date.now();
    for (const name of ["abs-file-out", "rel-inside", "zero", "fifo.jsonl", "sub", path.join("dir-out", "secret.txt"), "missing.txt"]) {
      const file = path.join(root, name);
      expect(sync(file, { root, maxBytes: 1024 }), name).toBe(
        name === "missing.txt" ? "ENOENT" : name.startsWith("dir-out") ? "EACCES outside-root" : name === "fifo.jsonl" || name === "sub" ? "EACCES not-regular" : "EACCES symlink",
      );
    }
    expect(sync(path.join(root, "fifo.jsonl"), { follow: true, maxBytes: 1024 })).toBe("EACCES not-regular");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("reads a small file whole (and the bytes past its size asked for), its head, or nothing when it is larger than maxBytes", () => {
    const file = path.join(root, "sub", "file.txt");
    expect(sync(file, { root, maxBytes: 7 })).toBe("inside\n");
    expect(readSmallRegularFileSync(file, { root, maxBytes: 7, extra: 1 })?.bytes.length).toBe(7);
    expect(sync(file, { root, maxBytes: 7, length: 3 })).toBe("ins");
    expect(sync(file, { root, maxBytes: 6 })).toBe("null");
  });
});

describe("the library's readers never wait on a FIFO", () => {
  it("session files and archives named as FIFOs are refused at once", async () => {
    const started = Date.now();
    await expect(readSessionFile(path.join(root, "fifo.jsonl"))).rejects.toMatchObject({ code: "E_SESSION_LOAD", message: expect.stringMatching(/FIFO/) });
    await expect(scanSessionFile(path.join(root, "fifo.jsonl"))).rejects.toMatchObject({ code: "E_SESSION_LOAD" });
    await expect(openArchive(path.join(root, "fifo.fs.zip"))).rejects.toMatchObject({ code: "EACCES", data: { reason: "not-regular" } });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
