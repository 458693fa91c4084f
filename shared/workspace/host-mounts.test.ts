/**
 * Host mounts (conformance.md, last section): allowed roots, non-empty path, max_bytes,
 * include/exclude globs, default destination = relative host path, read errors — plus
 * symlinks out of an allowed root, which are never followed.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HostFilesystem } from "../filesystem/host/host-filesystem.js";
import { InMemoryFilesystem } from "../filesystem/memory/in-memory-filesystem.js";
import type { Filesystem } from "../filesystem/protocol.js";
import { hydrateHostMounts } from "./host-mounts.node.js";

let base: string;
let project: string;
let outside: string;

async function files(fs: Filesystem, dir = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.list(dir)) {
    if (entry.isDirectory) out.push(...(await files(fs, entry.path)));
    else out.push(entry.path);
  }
  return out.sort();
}

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "wink-mounts-"));
  project = join(base, "project");
  outside = join(base, "outside");
  await mkdir(join(project, "src", "pkg", "__pycache__"), { recursive: true });
  await mkdir(join(project, "docs"), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(join(project, "src", "main.py"), "print('hi')\n");
  await writeFile(join(project, "src", "pkg", "util.py"), "X = 1\n");
  await writeFile(join(project, "src", "pkg", "__pycache__", "util.cpython.pyc"), "bytecode");
  await writeFile(join(project, "src", "notes.txt"), "notes\n");
  await writeFile(join(project, "docs", "guide.md"), "# Guide\n");
  await writeFile(join(project, "README.md"), "# Project\n");
  await writeFile(join(outside, "secret.txt"), "secret\n");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("hydrateHostMounts", () => {
  it("copies directories to their path relative to the allowed root, with include/exclude globs", async () => {
    const fs = new InMemoryFilesystem();
    const summaries = await hydrateHostMounts(
      fs,
      [
        { hostPath: "src", include: ["**/*.py"], exclude: ["**/__pycache__"] },
        { hostPath: join(project, "docs"), include: ["*.md"] },
        { hostPath: "README.md" },
      ],
      { allowedHostRoots: [project] },
    );
    expect(await files(fs)).toEqual(["README.md", "docs/guide.md", "src/main.py", "src/pkg/util.py"]);
    expect(summaries.map((s) => [s.mountPath, s.files, s.bytes])).toEqual([
      ["src", 2, 18],
      ["docs", 1, 8],
      ["README.md", 1, 10],
    ]);
    expect((await fs.read("src/pkg/util.py")).content).toBe("X = 1\n");
  });

  it("honours an explicit destination (with the workspace's mount point) and a mount of the root", async () => {
    const host = new HostFilesystem({ root: await mkdtemp(join(base, "ws-")), durable: false, mountPoint: "/workspace" });
    await hydrateHostMounts(host, [{ hostPath: "docs", mountPath: "/workspace/manual" }], { allowedHostRoots: [project] });
    expect(await files(host)).toEqual(["manual/guide.md"]);
    const fs = new InMemoryFilesystem();
    await hydrateHostMounts(fs, [{ hostPath: project, exclude: ["src"] }], { allowedHostRoots: [project] });
    expect(await files(fs)).toEqual(["README.md", "docs/guide.md"]);
  });

  it("refuses paths outside the allowed roots, empty paths and missing paths", async () => {
    const fs = new InMemoryFilesystem();
    await expect(hydrateHostMounts(fs, [{ hostPath: outside }], { allowedHostRoots: [project] })).rejects.toMatchObject({ code: "EACCES", message: expect.stringMatching(/outside allowed host roots/) });
    await expect(hydrateHostMounts(fs, [{ hostPath: "../outside" }], { allowedHostRoots: [project] })).rejects.toMatchObject({ code: "EACCES" });
    await expect(hydrateHostMounts(fs, [{ hostPath: "src" }], { allowedHostRoots: [] })).rejects.toMatchObject({ code: "EACCES" });
    await expect(hydrateHostMounts(fs, [{ hostPath: "" }], { allowedHostRoots: [project] })).rejects.toMatchObject({ code: "EINVAL", message: expect.stringMatching(/must not be empty/) });
    await expect(hydrateHostMounts(fs, [{ hostPath: "nope" }], { allowedHostRoots: [project] })).rejects.toMatchObject({ code: "ENOENT" });
    expect(await files(fs)).toEqual([]);
  });

  it("never follows symlinks out of an allowed root", async () => {
    await symlink(outside, join(project, "escape-dir"));
    await symlink(join(outside, "secret.txt"), join(project, "src", "leak.txt"));
    await symlink(join(project, "docs"), join(project, "src", "docs-link"));
    await symlink(join(project, "src"), join(project, "src", "pkg", "loop"));
    const fs = new InMemoryFilesystem();
    // The mount path itself resolving outside is refused.
    await expect(hydrateHostMounts(fs, [{ hostPath: "escape-dir" }], { allowedHostRoots: [project] })).rejects.toMatchObject({ code: "EACCES", data: { reason: "symlink-escape" } });
    // Inside a mount: skipped and reported, followed or not.
    const [plain] = await hydrateHostMounts(fs, [{ hostPath: "src" }], { allowedHostRoots: [project] });
    expect(plain?.skipped).toEqual([
      { path: "docs-link", reason: "symbolic link (not followed)" },
      { path: "leak.txt", reason: "symbolic link (not followed)" },
      { path: "pkg/loop", reason: "symbolic link (not followed)" },
    ]);
    const followed = new InMemoryFilesystem();
    const [withLinks] = await hydrateHostMounts(followed, [{ hostPath: "src", followSymlinks: true }], { allowedHostRoots: [project] });
    expect(withLinks?.skipped).toEqual([
      { path: "leak.txt", reason: "symbolic link leaving the allowed host roots" },
      { path: "pkg/loop", reason: "symbolic link cycle" },
    ]);
    expect(await files(followed)).toContain("src/docs-link/guide.md");
    expect(await followed.exists("src/leak.txt")).toBe(false);
  });

  it("enforces max_bytes before copying anything", async () => {
    const fs = new InMemoryFilesystem();
    await expect(hydrateHostMounts(fs, [{ hostPath: "docs" }, { hostPath: "src", maxBytes: 20 }], { allowedHostRoots: [project] })).rejects.toMatchObject({
      code: "EINVAL",
      data: { reason: "max-bytes", limit: 20 },
      message: expect.stringMatching(/exceeds max_bytes \(20 bytes\)/),
    });
    expect(await files(fs)).toEqual([]);
    await hydrateHostMounts(fs, [{ hostPath: "docs", maxBytes: 8 }], { allowedHostRoots: [project] });
    expect(await files(fs)).toEqual(["docs/guide.md"]);
  });

  it("undoes a mount that fails half-way, leaving the workspace as it was", async () => {
    const fs = new InMemoryFilesystem({ limits: { maxWriteBytes: 12 } });
    await fs.write("docs/guide.md", "mine");
    await writeFile(join(project, "src", "zz-big.py"), "x".repeat(100));
    await expect(hydrateHostMounts(fs, [{ hostPath: "docs" }, { hostPath: "src" }], { allowedHostRoots: [project] })).rejects.toMatchObject({ code: "EINVAL" });
    expect(await files(fs)).toEqual(["docs/guide.md"]);
    expect((await fs.read("docs/guide.md")).content).toBe("mine");
  });

  it("skips names the workspace cannot hold, and reports them", async () => {
    await writeFile(join(project, "docs", "x".repeat(90)), "long name");
    const fs = new InMemoryFilesystem();
    const [summary] = await hydrateHostMounts(fs, [{ hostPath: "docs" }], { allowedHostRoots: [project] });
    expect(summary?.skipped).toEqual([{ path: "x".repeat(90), reason: expect.stringMatching(/segment/i) }]);
    expect(await files(fs)).toEqual(["docs/guide.md"]);
  });
});
