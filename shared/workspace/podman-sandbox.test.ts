/**
 * `PodmanSandbox` for real: the overlay shared between the host filesystem and the
 * container, hydration from host mounts, snapshots of the overlay (copy/reflink and git)
 * that the container sees restored, `podman commit` where podman allows it, archives across
 * backends, and cleanup.
 */
import { mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { expectCode } from "../filesystem/conformance/suite.js";
import { PodmanContainer } from "../filesystem/podman/container.js";
import { defaultPodman } from "../filesystem/podman/podman-cli.js";
import { PodmanFilesystem } from "../filesystem/podman/podman-filesystem.js";
import { PodmanSandbox } from "./podman-sandbox.js";
import { ensureBusyboxImage } from "../filesystem/podman/rootfs.js";

const scratch: string[] = [];
const sandboxes: PodmanSandbox[] = [];

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

async function sandboxOf(options: Parameters<typeof PodmanSandbox.create>[0] = {}): Promise<PodmanSandbox> {
  const sandbox = await PodmanSandbox.create({ ...options, filesystem: { durable: false, ...options.filesystem } });
  sandboxes.push(sandbox);
  return sandbox;
}

async function sh(sandbox: PodmanSandbox, script: string): Promise<string> {
  const result = await sandbox.exec(["/bin/sh", "-c", script]);
  expect(result.exitCode, result.stderr.toString()).toBe(0);
  return result.stdout.toString();
}

afterEach(async () => {
  for (const sandbox of sandboxes.splice(0)) await sandbox.close();
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("PodmanSandbox", { timeout: 120_000 }, () => {
  it("shares one workspace between the filesystem and the container, under both path spellings", async () => {
    const sandbox = await sandboxOf();
    const fs = sandbox.filesystem;
    expect(fs.mountPoint).toBe("/workspace");
    expect(fs.root).toBe(sandbox.overlayPath);
    await fs.write("/workspace/src/a.ts", "export const a = 1;\n");
    expect((await fs.read("src/a.ts")).content).toBe("export const a = 1;\n");
    expect(await sh(sandbox, "cat /workspace/src/a.ts")).toBe("export const a = 1;\n");
    await sh(sandbox, "mkdir -p /workspace/out && echo built > /workspace/out/result.txt && chmod 755 /workspace/out/result.txt");
    expect((await fs.read("/workspace/out/result.txt")).content).toBe("built\n");
    expect(((await fs.stat("out/result.txt")).mode ?? 0) & 0o777).toBe(0o755);
    expect((await fs.list("/workspace")).map((e) => e.name)).toEqual(["out", "src"]);
    await fs.delete("out", { recursive: true });
    expect(await sh(sandbox, "ls /workspace")).toBe("src\n");
  });

  it("works before the container starts and starts it on the first command", async () => {
    const sandbox = await sandboxOf({ start: false });
    await sandbox.filesystem.write("early.txt", "written before the container existed");
    expect(await sh(sandbox, "cat early.txt")).toBe("written before the container existed");
  });

  it("hydrates the overlay from host mounts with include/exclude, skipping links", async () => {
    const host = await tempDir("wink-mount-");
    await mkdir(join(host, "src/lib"), { recursive: true });
    await mkdir(join(host, "node_modules/dep"), { recursive: true });
    await writeFile(join(host, "src/main.ts"), "main");
    await writeFile(join(host, "src/lib/util.ts"), "util");
    await writeFile(join(host, "src/notes.md"), "notes");
    await writeFile(join(host, "node_modules/dep/index.ts"), "dep");
    await writeFile(join(host, "run.sh"), "#!/bin/sh\n", { mode: 0o755 });
    await symlink("/etc/passwd", join(host, "src/passwd.ts"));
    const docs = await tempDir("wink-docs-");
    await writeFile(join(docs, "guide.md"), "guide");
    const sandbox = await sandboxOf({
      mounts: [
        { hostPath: host, include: ["**/*.ts", "*.sh"], exclude: ["node_modules/**"] },
        { hostPath: docs, mountPath: "/workspace/docs" },
      ],
      allowedHostRoots: [host, docs],
    });
    expect(sandbox.hydration).toMatchObject({ files: 4, bytes: 4 + 4 + 10 + 5 });
    expect(sandbox.hydration.skipped).toEqual([{ path: "src/passwd.ts", reason: "symbolic link (not followed)" }]);
    expect((await sandbox.filesystem.glob("**")).map((m) => m.path)).toEqual(["docs/guide.md", "run.sh", "src/lib/util.ts", "src/main.ts"]);
    expect(await sh(sandbox, "find /workspace -type f | sort && stat -c %a run.sh")).toBe(
      "/workspace/docs/guide.md\n/workspace/run.sh\n/workspace/src/lib/util.ts\n/workspace/src/main.ts\n755\n",
    );
  });

  it("refuses a mount over its byte budget and leaves nothing behind", async () => {
    const host = await tempDir("wink-mount-");
    await writeFile(join(host, "big.bin"), new Uint8Array(4096));
    const overlayRoot = await tempDir("wink-overlays-");
    await expect(PodmanSandbox.create({ overlayRoot, mounts: [{ hostPath: host, maxBytes: 1000 }], allowedHostRoots: [host] })).rejects.toMatchObject({
      code: "EINVAL",
      message: expect.stringMatching(/exceeds max_bytes \(1000 bytes\)/),
    });
    expect(await readdir(overlayRoot)).toEqual([]);
  });

  it("refuses a hostile mount outside the allowed host roots (as written or through a link) and leaves nothing behind", async () => {
    const allowed = await tempDir("wink-mount-");
    const secret = await tempDir("wink-secret-");
    await writeFile(join(secret, "key"), "secret");
    await symlink(secret, join(allowed, "escape"));
    const overlayRoot = await tempDir("wink-overlays-");
    for (const hostPath of [secret, "../" + basename(secret), "escape"]) {
      await expect(PodmanSandbox.create({ overlayRoot, mounts: [{ hostPath }], allowedHostRoots: [allowed] })).rejects.toMatchObject({ code: "EACCES", message: expect.stringMatching(/outside allowed host roots/) });
    }
    await expect(PodmanSandbox.create({ overlayRoot, mounts: [{ hostPath: allowed }] })).rejects.toMatchObject({ code: "EACCES", data: { reason: "not-allowed" } });
    expect(await readdir(overlayRoot)).toEqual([]);
  });

  for (const strategy of ["overlay", "git"] as const) {
    it(`snapshots the overlay (${strategy}) and restores what container commands changed`, async () => {
      const sandbox = await sandboxOf({ snapshotStrategy: strategy });
      const fs = sandbox.filesystem;
      await fs.write("keep.txt", "v1\n");
      await fs.write("edit.txt", "original\n");
      await fs.writeBytes("bin/blob", Uint8Array.from({ length: 1000 }, (_, i) => i % 256));
      const base = await sandbox.snapshot({ tag: "before-agent" });
      expect(base).toMatchObject({ backend: "podman", tag: "before-agent", fileCount: 3, parentId: null });
      expect(base.strategy).toMatch(strategy === "git" ? /^overlay-git$/ : /^overlay-(reflink|copy)$/);
      expect(sandbox.currentSnapshotId).toBe(base.snapshotId);

      await sh(sandbox, "echo changed > edit.txt && echo new > added.txt && rm keep.txt && mkdir -p gen && echo x > gen/out");
      const diff = await sandbox.diff(base);
      expect(diff).toEqual({ added: ["added.txt", "gen/out"], modified: ["edit.txt"], deleted: ["keep.txt"], unchangedCount: 1 });
      const after = await sandbox.snapshot();
      expect(after.parentId).toBe(base.snapshotId);

      await sandbox.restore(base);
      expect(await sh(sandbox, "cat keep.txt edit.txt; ls")).toBe("v1\noriginal\nbin\nedit.txt\nkeep.txt\n");
      expect((await fs.readBytes("bin/blob")).content[999]).toBe(999 % 256);
      expect(await sandbox.diff(base, after)).toEqual({ added: ["added.txt", "gen/out"], modified: ["edit.txt"], deleted: ["keep.txt"], unchangedCount: 1 });

      await sandbox.restore(after);
      expect(await sh(sandbox, "cat added.txt gen/out")).toBe("new\nx\n");
      expect((await sandbox.listSnapshots()).map((s) => s.snapshotId)).toEqual([base.snapshotId, after.snapshotId]);
    });
  }

  it("refuses snapshots of other kinds", async () => {
    const sandbox = await sandboxOf({ start: false });
    const record = await sandbox.snapshot();
    await expect(sandbox.restore({ ...record, backend: "in_memory", strategy: "memory-cow" })).rejects.toMatchObject({ code: "E_SNAPSHOT_INCOMPATIBLE" });
    await expect(sandbox.restore({ ...record, strategy: "container-commit" })).rejects.toMatchObject({ code: "E_SNAPSHOT_INCOMPATIBLE", message: expect.stringMatching(/PodmanSandbox.create/) });
  });

  it("commits an image-based container with podman commit, and refuses it for --rootfs ones", async () => {
    const rootfsSandbox = await sandboxOf();
    await expectCode(rootfsSandbox.commitContainer(), "E_SNAPSHOT_CREATE", /--rootfs/);

    const image = await ensureBusyboxImage();
    const sandbox = await sandboxOf({ container: { image, readOnlyRootfs: false } });
    await sandbox.filesystem.write("in-workspace.txt", "bind-mounted, not committed");
    await sh(sandbox, "mkdir -p /root/tool && echo installed > /root/tool/version");
    const record = await sandbox.commitContainer({ tag: "with-tool" });
    expect(record).toMatchObject({ backend: "podman", strategy: "container-commit", tag: "with-tool" });
    try {
      const restored = await sandboxOf({ container: { image: record.storagePath ?? "", readOnlyRootfs: false } });
      expect(await sh(restored, "cat /root/tool/version; ls -A /workspace | wc -l")).toBe("installed\n0\n");
    } finally {
      for (const sandboxToClose of sandboxes.splice(0)) await sandboxToClose.close();
      await defaultPodman().run(["rmi", "--force", record.storagePath ?? ""]);
    }
  });

  it("moves a workspace between the overlay and an exec-only container through one archive", async () => {
    const dir = await tempDir("wink-archives-");
    const sandbox = await sandboxOf();
    await sandbox.filesystem.write("app/main.py", "print('hello')\n");
    await sandbox.filesystem.write("app/run.sh", "#!/bin/sh\n", { fileMode: 0o755 });
    await sandbox.filesystem.exportArchive(join(dir, "app.fs.zip"));
    const container = await PodmanContainer.create();
    const exec = new PodmanFilesystem({ container });
    try {
      await exec.importArchive(join(dir, "app.fs.zip"));
      expect((await exec.read("app/main.py")).content).toBe("print('hello')\n");
      expect(((await exec.stat("app/run.sh")).mode ?? 0) & 0o777).toBe(0o755);
      await exec.write("app/main.py", "print('changed in the container')\n");
      await exec.exportArchive(join(dir, "back.fs.zip"));
      await sandbox.filesystem.importArchive(join(dir, "back.fs.zip"));
      expect(await sh(sandbox, "cat app/main.py")).toBe("print('changed in the container')\n");
    } finally {
      await exec.close();
      await container.remove();
    }
  });

  it("closes idempotently, removing its container and its directory", async () => {
    const sandbox = await PodmanSandbox.create({ filesystem: { durable: false } });
    const container = await sandbox.container();
    await sandbox.snapshot();
    await sandbox.close();
    await sandbox.close();
    expect(sandbox.closed).toBe(true);
    expect(await container.running()).toBe(false);
    const listed = await defaultPodman().run(["ps", "--all", "--filter", `name=^${container.name}$`, "--format", "{{.ID}}"]);
    expect(listed.stdout.toString().trim()).toBe("");
    await expect(stat(sandbox.directory)).rejects.toMatchObject({ code: "ENOENT" });
    await expect(sandbox.exec(["true"])).rejects.toMatchObject({ code: "EUNAVAILABLE" });
  });
});

describe("no leaked containers", () => {
  let before: Set<string>;
  beforeAll(async () => {
    before = new Set((await defaultPodman().run(["ps", "--all", "--format", "{{.Names}}"])).stdout.toString().split("\n").filter(Boolean));
  });

  afterAll(async () => {
    for (const sandbox of sandboxes.splice(0)) await sandbox.close();
  });

  it("leaves no container of this file behind", async () => {
    const sandbox = await PodmanSandbox.create({ filesystem: { durable: false } });
    const name = (await sandbox.container()).name;
    await sandbox.close();
    const now = (await defaultPodman().run(["ps", "--all", "--format", "{{.Names}}"])).stdout.toString().split("\n").filter(Boolean);
    expect(now.filter((n) => !before.has(n) && n === name)).toEqual([]);
  });
});
