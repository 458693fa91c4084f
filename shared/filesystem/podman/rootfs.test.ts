/**
 * The busybox rootfs cache: built once per busybox version, concurrently by several
 * processes without clashes, never written to by running containers, and refused when the
 * cache directory is not private.
 */
import { spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { PodmanContainer } from "./container.js";
import { runProcess } from "./process.js";
import { ensureBusyboxRootfs, ensurePrivateDirectory, isDynamicElf } from "./rootfs.js";

const ROOTFS_MODULE = fileURLToPath(new URL("./rootfs.ts", import.meta.url));
const dirs: string[] = [];

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "wink-rootfs-test-"));
  dirs.push(dir);
  return dir;
}

afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

function buildInChild(cacheDir: string): Promise<string> {
  const script = `import { ensureBusyboxRootfs } from ${JSON.stringify(ROOTFS_MODULE)}; const r = await ensureBusyboxRootfs({ cacheDir: ${JSON.stringify(cacheDir)} }); process.stdout.write(r.path);`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`child failed (${code}): ${err}`))));
  });
}

describe("busybox rootfs", { timeout: 120_000 }, () => {
  it("is built once when several processes ask at the same time", async () => {
    const cacheDir = join(await scratch(), "cache");
    const paths = await Promise.all([1, 2, 3, 4].map(() => buildInChild(cacheDir)));
    expect(new Set(paths).size).toBe(1);
    const [path] = paths as [string];
    expect(await readdir(cacheDir)).toEqual([path.slice(cacheDir.length + 1)]);
    expect(path).toMatch(/\/busybox-\d+\.\d+\.\d+-[0-9a-f]{12}$/);
    expect((await stat(join(path, "bin/busybox"))).mode & 0o777).toBe(0o755);
    expect((await stat(join(path, "tmp"))).mode & 0o7777).toBe(0o1777);
    expect(await readFile(join(path, "etc/passwd"), "utf8")).toMatch(/^root:x:0:0:/);
    // Applets are links to the one binary.
    const sh = await runProcess(join(path, "bin/sh"), ["-c", "echo works"]);
    expect(sh.stdout.toString()).toBe("works\n");
    expect((await ensureBusyboxRootfs({ cacheDir })).path).toBe(path);
  });

  it("is not written to by the containers that run on it", async () => {
    const rootfs = await ensureBusyboxRootfs();
    // Anything in the rootfs newer than this marker was written by the container run.
    const marker = join(await scratch(), "marker");
    await writeFile(marker, "");
    const container = await PodmanContainer.create({ rootfs: rootfs.path });
    try {
      const result = await container.exec(["/bin/sh", "-c", "echo hi > /tmp/x && cat /etc/hostname"]);
      expect(result.exitCode).toBe(0);
    } finally {
      await container.remove();
    }
    const changed = await runProcess("find", [rootfs.path, "-newer", marker]);
    expect(changed.exitCode).toBe(0);
    expect(changed.stdout.toString()).toBe("");
  });

  it("tells static from dynamic executables", async () => {
    const rootfs = await ensureBusyboxRootfs();
    expect(isDynamicElf(new Uint8Array(await readFile(join(rootfs.path, "bin/busybox"))))).toBe(false);
    expect(isDynamicElf(new Uint8Array(await readFile(process.execPath)))).toBe(true);
    expect(isDynamicElf(new TextEncoder().encode("#!/bin/sh\n"))).toBe(false);
  });

  it("refuses a cache directory others can write to, or that is a link", async () => {
    const base = await scratch();
    const open = join(base, "open");
    await mkdir(open);
    await chmod(open, 0o777);
    await expect(ensurePrivateDirectory(open)).rejects.toMatchObject({ code: "EUNAVAILABLE" });
    await expect(ensureBusyboxRootfs({ cacheDir: open })).rejects.toMatchObject({ code: "EUNAVAILABLE" });
    await symlink(base, join(base, "link"));
    await expect(ensurePrivateDirectory(join(base, "link"))).rejects.toMatchObject({ code: "EUNAVAILABLE" });
    await expect(ensureBusyboxRootfs({ busyboxPath: process.execPath, cacheDir: join(base, "fresh") })).rejects.toMatchObject({ code: "EUNAVAILABLE", message: expect.stringMatching(/dynamically linked/) });
  });
});
