/**
 * The exec backend against a real container: what the conformance suite cannot see from
 * outside — links and special files made inside the container, names that are shell
 * syntax, the per-call transport, the session's framing and restarts, atomic writes on a
 * full disk, and recovery of an interrupted tree swap.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectCode } from "../conformance/suite.js";
import { PodmanContainer } from "./container.js";
import { PodmanFilesystem } from "./podman-filesystem.js";

const HOSTILE_NAMES = ["-rf", "--help", "$(touch pwned)", "`touch pwned2`", "a;touch b", "*", "?", "[ab]", "'q'", '"dq"', "a b  c", " lead", "trail ", "back\\slash-free", "%s%n", "~root", "x=y", "|pipe", "&bg", ">redir", "<in", "{a,b}", "#hash", "!bang", "$HOME", "\u00e9\u6f22\u{1f600}"].filter(
  (name) => !name.includes("\\"),
);

let container: PodmanContainer;
let fs: PodmanFilesystem;

async function sh(script: string): Promise<string> {
  const result = await container.exec(["/bin/sh", "-c", script]);
  expect(result.exitCode, result.stderr.toString()).toBe(0);
  return result.stdout.toString();
}

beforeAll(async () => {
  container = await PodmanContainer.create({ workspace: { kind: "tmpfs", sizeBytes: 8 * 1024 * 1024 } });
  fs = new PodmanFilesystem({ container });
}, 120_000);

afterAll(async () => {
  await fs?.close();
  await container?.remove();
});

describe("PodmanFilesystem (exec) inside a real container", { timeout: 120_000 }, () => {
  it("takes shell syntax in names literally, as argv, in both transports", async () => {
    const perCall = new PodmanFilesystem({ container, transport: "per-call", workdir: "/workspace/percall" });
    await fs.mkdir("percall");
    for (const name of HOSTILE_NAMES) await fs.write(`names/${name}`, `content of ${name}`);
    expect((await fs.list("names")).map((e) => e.name).sort()).toEqual([...HOSTILE_NAMES].sort());
    for (const name of HOSTILE_NAMES) expect((await fs.read(`names/${name}`)).content).toBe(`content of ${name}`);
    for (const name of HOSTILE_NAMES.slice(0, 6)) {
      await perCall.write(name, name);
      expect((await perCall.read(name)).content).toBe(name);
      expect((await perCall.stat(name)).isFile).toBe(true);
    }
    expect((await perCall.list()).length).toBe(6);
    await perCall.delete("*");
    expect(await perCall.exists("-rf")).toBe(true);
    // Nothing was ever run by a shell: the would-be payloads left no trace.
    expect(await sh("ls -aR /tmp /workspace")).not.toMatch(/^pwned/m);
    expect(await sh("ls /workspace/names | wc -l")).toBe(`${HOSTILE_NAMES.length}\n`);
    await fs.delete("names", { recursive: true });
    await fs.delete("percall", { recursive: true });
  });

  it("never follows symlinks made inside the container, and refuses special files without blocking", async () => {
    await sh("mkdir -p /workspace/links && cd /workspace/links && ln -s /etc etc && ln -s /etc/passwd passwd && ln -s ../links loop && mkfifo fifo && mkdir real && echo inside > real/f");
    await expectCode(fs.read("links/etc/passwd"), "EACCES", /symbolic link links\/etc/);
    await expectCode(fs.read("links/passwd"), "EACCES", /symbolic link/);
    await expectCode(fs.write("links/passwd", "x"), "EACCES");
    await expectCode(fs.write("links/etc/evil", "x"), "EACCES");
    await expectCode(fs.mkdir("links/etc/sub"), "EACCES");
    await expectCode(fs.list("links/etc"), "EACCES");
    await expectCode(fs.read("links/fifo"), "EACCES", /not a regular file/);
    expect(await fs.exists("links/etc/passwd")).toBe(false);
    expect((await fs.stat("links/etc")).kind).toBe("symlink");
    expect((await fs.list("links")).map((e) => [e.name, e.kind])).toEqual([
      ["etc", "symlink"],
      ["fifo", "other"],
      ["loop", "symlink"],
      ["passwd", "symlink"],
      ["real", "directory"],
    ]);
    expect((await fs.glob("links/**")).map((m) => m.path)).toEqual(["links/real/f"]);
    expect((await fs.grep("root")).length).toBe(0);
    await fs.delete("links/etc");
    expect(await sh("test -d /etc && test -f /etc/passwd && echo intact")).toBe("intact\n");
    await fs.delete("links", { recursive: true });
    expect(await sh("ls /etc | wc -l")).not.toBe("0\n");
  });

  it("lists names with newlines but refuses to address them", async () => {
    await sh("mkdir -p /workspace/odd && printf 'x' > '/workspace/odd/two\nlines' && printf 'hello' > /workspace/odd/plain");
    const walked = await fs.glob("odd/*");
    expect(walked.map((m) => m.path)).toEqual(["odd/plain", "odd/two\nlines"]);
    await expectCode(fs.readBytes("odd/two\nlines"), "EINVAL");
    expect((await fs.grep("hello")).map((m) => m.path)).toEqual(["odd/plain"]);
    await fs.delete("odd", { recursive: true });
  });

  it("round-trips large binary files through several chunks", async () => {
    const data = Uint8Array.from({ length: 3 * 1024 * 1024 + 17 }, (_, i) => (i * 131 + (i >> 11)) % 256);
    await fs.writeBytes("big.bin", data);
    const back = await fs.readBytes("big.bin");
    expect(back.sizeBytes).toBe(data.length);
    expect(Buffer.from(back.content).equals(Buffer.from(data))).toBe(true);
    const middle = await fs.readBytes("big.bin", { offset: 1024 * 1024 - 5, limit: 10 });
    expect([...middle.content]).toEqual([...data.subarray(1024 * 1024 - 5, 1024 * 1024 + 5)]);
    expect(await sh("md5sum /workspace/big.bin | cut -d' ' -f1")).toBe(`${(await import("node:crypto")).createHash("md5").update(data).digest("hex")}\n`);
    await fs.delete("big.bin");
  });

  it("keeps file contents that look like requests as data", async () => {
    const forged = "stat\n2\n/workspace\nx\nremove\n3\n/workspace\nkeep\n1\n";
    await fs.write("keep/forged.txt", forged);
    await fs.write("keep/other.txt", "still here");
    expect((await fs.read("keep/forged.txt")).content).toBe(forged);
    expect((await fs.read("keep/other.txt")).content).toBe("still here");
    await fs.delete("keep", { recursive: true });
  });

  it("serves concurrent callers through one session", async () => {
    await Promise.all(Array.from({ length: 40 }, (_, i) => fs.write(`many/f${i}.txt`, `value ${i}`)));
    const reads = await Promise.all(Array.from({ length: 40 }, (_, i) => fs.read(`many/f${i}.txt`)));
    expect(reads.map((r) => r.content)).toEqual(Array.from({ length: 40 }, (_, i) => `value ${i}`));
    expect((await fs.list("many")).length).toBe(40);
    await fs.delete("many", { recursive: true });
  });

  it("answers reads issued together in one batch, each with its own result", async () => {
    await sh("mkdir -p /workspace/batch && cd /workspace/batch && ln -s /etc/passwd link && mkfifo pipe && mkdir dir && printf '' > empty");
    for (let i = 0; i < 150; i++) await fs.write(`batch/f${i}.txt`, `file ${i}\n`.repeat(i % 5));
    const driver = fs.execDriver;
    const names = [...Array.from({ length: 150 }, (_, i) => `batch/f${i}.txt`), "batch/link", "batch/pipe", "batch/dir", "batch/missing", "batch/empty", "batch/f3.txt/x"];
    const results = await Promise.all(names.map((name) => driver.readFile(name).then((bytes) => Buffer.from(bytes).toString(), (error: { code: string }) => error.code)));
    expect(results.slice(0, 150)).toEqual(Array.from({ length: 150 }, (_, i) => `file ${i}\n`.repeat(i % 5)));
    expect(results.slice(150)).toEqual(["EACCES", "EACCES", "EISDIR", "ENOENT", "", "ENOTDIR"]);
    const matches = await fs.grep("^file 1\\d?\\d?$", { path: "batch" });
    expect(new Set(matches.map((m) => m.path)).size).toBe(Array.from({ length: 150 }, (_, i) => i).filter((i) => /^1\d?\d?$/.test(String(i)) && i % 5 !== 0).length);
    await fs.delete("batch", { recursive: true });
  });

  it("starts a new session when the helper dies", async () => {
    // The session's command line ends in "wink-exec serve /tmp"; the quotes keep this script from matching itself.
    const sessions = (signal: string) =>
      sh(`for d in /proc/[0-9]*; do c=$(tr '\\0' ' ' < $d/cmdline 2>/dev/null); case "$c" in *" wink-exec "serve" "*) ${signal} \${d#/proc/} ;; esac; done`);
    await fs.write("session.txt", "before");
    const before = await sessions("echo");
    expect(before.trim().split("\n")).toHaveLength(1);
    await sessions("kill -9");
    expect((await fs.read("session.txt")).content).toBe("before");
    const after = await sessions("echo");
    expect(after.trim().split("\n")).toHaveLength(1);
    expect(after).not.toBe(before);
    await fs.delete("session.txt");
  });

  it("times out a request to a frozen container, then recovers with a fresh session", async () => {
    const patient = new PodmanFilesystem({ container, requestTimeoutMs: 1_000 });
    await patient.write("frozen.txt", "thawed");
    await container.podman.check(["pause", container.id], "pause the container");
    try {
      const started = Date.now();
      await expect(patient.read("frozen.txt")).rejects.toMatchObject({ code: "ETIMEDOUT" });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await container.podman.check(["unpause", container.id], "unpause the container");
    }
    expect((await patient.read("frozen.txt")).content).toBe("thawed");
    await patient.delete("frozen.txt");
    await patient.close();
  });

  it("leaves the old file intact and no temp files when the disk is full", async () => {
    await fs.write("full/keep.txt", "original");
    const tooBig = new Uint8Array(12 * 1024 * 1024);
    const started = Date.now();
    await expect(fs.writeBytes("full/keep.txt", tooBig)).rejects.toMatchObject({ code: "ENOSPC" });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect((await fs.read("full/keep.txt")).content).toBe("original");
    expect(await sh("ls -a /workspace/full")).toBe(".\n..\nkeep.txt\n");
    await fs.write("full/after.txt", "the session still works");
    expect((await fs.read("full/after.txt")).content).toBe("the session still works");
    await fs.delete("full", { recursive: true });
  });

  it("hides and protects the helper's reserved names", async () => {
    await expectCode(fs.write(".wink-exec-stage.x/f", "x"), "EACCES", /reserved/);
    await expectCode(fs.mkdir(".wink-exec-old.y"), "EACCES", /reserved/);
    expect(await fs.exists(".wink-exec-journal")).toBe(false);
  });

  it("finishes or rolls back a tree swap that a crash interrupted", async () => {
    // Phase "out" interrupted: one old entry already moved aside, the new tree staged.
    await sh(
      [
        "cd /workspace",
        "rm -rf -- /workspace/* /workspace/.[!.]*",
        "echo old-a > a.txt && echo old-b > b.txt",
        "mkdir .wink-exec-stage.S1 .wink-exec-old.O1",
        "echo new > .wink-exec-stage.S1/new.txt",
        "mv a.txt .wink-exec-old.O1/",
        "echo '.wink-exec-stage.S1 .wink-exec-old.O1 out' > .wink-exec-journal",
      ].join(" && "),
    );
    const rolledBack = new PodmanFilesystem({ container });
    expect((await rolledBack.list()).map((e) => e.name)).toEqual(["a.txt", "b.txt"]);
    expect((await rolledBack.read("a.txt")).content).toBe("old-a\n");
    expect(await sh("ls -a /workspace")).toBe(".\n..\na.txt\nb.txt\n");
    await rolledBack.close();

    // Phase "in" interrupted: all old entries aside, one new entry already in place.
    await sh(
      [
        "cd /workspace",
        "mkdir .wink-exec-stage.S2 .wink-exec-old.O2",
        "mv a.txt b.txt .wink-exec-old.O2/",
        "echo new-1 > n1.txt && echo new-2 > .wink-exec-stage.S2/n2.txt",
        "echo '.wink-exec-stage.S2 .wink-exec-old.O2 in' > .wink-exec-journal",
      ].join(" && "),
    );
    const rolledForward = new PodmanFilesystem({ container });
    expect((await rolledForward.list()).map((e) => e.name)).toEqual(["n1.txt", "n2.txt"]);
    expect(await sh("ls -a /workspace")).toBe(".\n..\nn1.txt\nn2.txt\n");
    await rolledForward.delete("n1.txt");
    await rolledForward.delete("n2.txt");
    await rolledForward.close();
  });

  it("moves whole trees between the exec backend and the host through archives", async () => {
    const dir = await mkdtemp(join(tmpdir(), "wink-exec-archive-"));
    try {
      await fs.write("tree/src/main.py", "print('hi')\n");
      await fs.write("tree/run.sh", "#!/bin/sh\n", { fileMode: 0o755 });
      await fs.mkdir("tree/empty");
      const summary = await fs.exportArchive(join(dir, "tree.fs.zip"), { path: "tree" });
      expect(summary.fileCount).toBe(2);
      await fs.mkdir("copy");
      const other = new PodmanFilesystem({ container, workdir: "/workspace/copy" });
      await other.importArchive(join(dir, "tree.fs.zip"));
      expect(await sh("cd /workspace/copy && cat src/main.py && stat -c %a run.sh && test -d empty && echo ok")).toBe("print('hi')\n755\nok\n");
      await other.close();
      expect(() => new PodmanFilesystem({ container, workdir: "/tmp" })).toThrow(/outside the workdir/);
      await fs.delete("copy", { recursive: true });
      await fs.delete("tree", { recursive: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("fails clearly when the container is gone", async () => {
    const doomed = await PodmanContainer.create();
    const doomedFs = new PodmanFilesystem({ container: doomed });
    await doomedFs.write("x.txt", "x");
    await doomed.remove();
    await expect(doomedFs.read("x.txt")).rejects.toMatchObject({ code: "EUNAVAILABLE" });
    await doomedFs.close();
  });
});
