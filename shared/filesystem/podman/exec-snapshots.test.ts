/**
 * Native snapshots of the exec backend in a real container (busybox rootfs, runc): what the
 * conformance suite (which runs the snapshot contract on this backend too) cannot see from
 * outside — storage outside the root, changes made by container commands, links, modes and
 * empty directories, full disks on either side, other instances and transports.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MEMORY_SNAPSHOT_BACKEND } from "../memory/memory-snapshots.js";
import { PodmanContainer } from "./container.js";
import { EXEC_SNAPSHOT_STRATEGY } from "./exec-snapshots.js";
import { PodmanFilesystem } from "./podman-filesystem.js";

let container: PodmanContainer;
const opened: PodmanFilesystem[] = [];
let counter = 0;

async function sh(script: string): Promise<string> {
  const result = await container.exec(["/bin/sh", "-c", script]);
  expect(result.exitCode, result.stderr.toString()).toBe(0);
  return result.stdout.toString();
}

/** A filesystem on a fresh directory of the shared container. */
async function fresh(options: { transport?: "session" | "per-call"; name?: string } = {}): Promise<PodmanFilesystem> {
  const name = options.name ?? `ws${counter++}`;
  await sh(`mkdir -p /workspace/${name}`);
  const fs = new PodmanFilesystem({ container, workdir: `/workspace/${name}`, ...(options.transport ? { transport: options.transport } : {}) });
  opened.push(fs);
  return fs;
}

beforeAll(async () => {
  // A small /tmp (where snapshots go by default) and a small workspace, to fill either on purpose.
  container = await PodmanContainer.create({ workspace: { kind: "tmpfs", sizeBytes: 12 * 1024 * 1024 }, tmpSizeBytes: 16 * 1024 * 1024 });
}, 120_000);

afterAll(async () => {
  for (const fs of opened.splice(0)) {
    await fs.cleanup().catch(() => undefined);
    await fs.close();
  }
  await container?.remove();
});

describe("PodmanFilesystem native snapshots (exec, busybox)", { timeout: 120_000 }, () => {
  it("keeps snapshots in the container, outside the root and out of the protocol's sight", async () => {
    const fs = await fresh();
    await fs.write("a.txt", "hello");
    const snapshot = await fs.snapshot({ tag: "t" });
    expect(snapshot).toMatchObject({ backend: "podman", strategy: EXEC_SNAPSHOT_STRATEGY, rootPath: fs.root, commitRef: snapshot.snapshotId, fileCount: 1, totalBytes: 5 });
    expect(snapshot.storagePath).toBe(`${fs.snapshots.snapshotDir}/${snapshot.snapshotId}`);
    expect(fs.snapshots.snapshotDir.startsWith("/tmp/wink-snapshots/")).toBe(true);
    expect(await sh(`cat ${snapshot.storagePath}/tree/a.txt`)).toBe("hello");
    expect((await fs.list()).map((e) => e.name)).toEqual(["a.txt"]);
    expect((await fs.snapshots.list()).map((s) => s.snapshotId)).toEqual([snapshot.snapshotId]);
    expect(() => new PodmanFilesystem({ container, workdir: "/workspace/x", snapshots: { snapshotDir: "/workspace/x/.snaps" } })).toThrow(/outside the workdir/);
  });

  it("captures and restores what container commands changed: links, modes, empty directories, odd names", async () => {
    const fs = await fresh();
    await sh(`cd ${fs.root} && mkdir -p src empty 'a b' && printf 'x' > src/main.sh && chmod 755 src/main.sh && ln -s src/main.sh link && printf '1' > 'a b/-rf' && printf 'q' > '$(id)'`);
    const before = await sh(`cd ${fs.root} && ls -laR | sed 's/ [A-Z][a-z][a-z] .* / /'`);
    const snapshot = await fs.snapshot();
    await sh(`cd ${fs.root} && rm -rf src empty link && chmod 600 'a b/-rf' && printf 'new' > extra`);
    await fs.restore(snapshot);
    expect(await sh(`cd ${fs.root} && ls -laR | sed 's/ [A-Z][a-z][a-z] .* / /'`)).toBe(before);
    expect(await sh(`readlink ${fs.root}/link`)).toBe("src/main.sh\n");
    expect((await fs.stat("src/main.sh")).mode).toBe(0o755);
    expect(await fs.exists("extra")).toBe(false);
  });

  it("diffs by bytes and permission bits, also for changes of the same size", async () => {
    const fs = await fresh();
    await fs.write("same-size.txt", "aaaa");
    await fs.write("mode.sh", "#!/bin/sh\n");
    await fs.write("keep.txt", "k");
    for (const name of ["-", "-rf", "a b/$(id)", "é/*"]) await fs.write(name, `same ${name}`);
    await fs.write("a b/changed", "1234");
    const base = await fs.snapshot();
    await sh(`cd ${fs.root} && printf 'aaab' > same-size.txt && chmod 755 mode.sh && printf '4321' > 'a b/changed'`);
    expect(await fs.diff(base)).toEqual({ added: [], modified: ["a b/changed", "mode.sh", "same-size.txt"], deleted: [], unchangedCount: 5 });
  });

  it("refuses released, foreign and other backends' snapshots, leaving the workspace as it was", async () => {
    const fs = await fresh();
    await fs.write("f.txt", "v1");
    const snapshot = await fs.snapshot();
    await fs.write("f.txt", "v2");
    expect(await fs.snapshots.drop(snapshot.snapshotId)).toBe(true);
    await expect(fs.restore(snapshot)).rejects.toMatchObject({ code: "E_SNAPSHOT_RESTORE", message: expect.stringMatching(/unknown snapshot/) });
    await expect(fs.diff(snapshot)).rejects.toMatchObject({ code: "E_SNAPSHOT_NOT_FOUND" });
    await expect(fs.restore({ ...snapshot, backend: MEMORY_SNAPSHOT_BACKEND, strategy: "memory-cow" })).rejects.toMatchObject({ code: "E_SNAPSHOT_INCOMPATIBLE" });
    await expect(fs.restore({ ...snapshot, storagePath: "/etc/../x" })).rejects.toMatchObject({ code: "E_SNAPSHOT_INCOMPATIBLE" });
    expect((await fs.read("f.txt")).content).toBe("v2");
  });

  it("restores through another instance and the per-call transport; a read-only instance refuses", async () => {
    const fs = await fresh({ name: "shared-root" });
    await fs.write("f.txt", "v1");
    const snapshot = await fs.snapshot();
    await fs.write("f.txt", "v2");
    const perCall = await fresh({ name: "shared-root", transport: "per-call" });
    expect((await perCall.snapshots.list()).map((s) => s.snapshotId)).toEqual([snapshot.snapshotId]);
    await perCall.restore(snapshot);
    expect((await fs.read("f.txt")).content).toBe("v1");
    const readOnly = new PodmanFilesystem({ container, workdir: fs.root, readOnly: true });
    opened.push(readOnly);
    await expect(readOnly.restore(snapshot)).rejects.toMatchObject({ code: "EACCES" });
  });

  it("fails cleanly when the snapshot store is full: no snapshot listed, the workspace unchanged", async () => {
    const fs = await fresh();
    await fs.write("small.txt", "s");
    const kept = await fs.snapshot();
    await sh(`dd if=/dev/zero of=${fs.root}/big.bin bs=1048576 count=9 2>/dev/null`);
    await sh("dd if=/dev/zero of=/tmp/filler bs=1048576 count=10 2>/dev/null");
    try {
      await expect(fs.snapshot()).rejects.toMatchObject({ code: "E_SNAPSHOT_CREATE" });
    } finally {
      await sh("rm -f /tmp/filler");
    }
    expect((await fs.snapshots.list()).map((s) => s.snapshotId)).toEqual([kept.snapshotId]);
    expect(await sh(`ls -a ${fs.snapshots.snapshotDir}`)).not.toMatch(/\.tmp-/);
    expect((await fs.stat("big.bin")).sizeBytes).toBe(9 * 1024 * 1024);
    await fs.delete("big.bin");
  });

  it("leaves the workspace exactly as it was when a restore runs out of space", async () => {
    const fs = await fresh();
    await sh(`dd if=/dev/zero of=${fs.root}/old.bin bs=1048576 count=6 2>/dev/null`);
    const snapshot = await fs.snapshot();
    await sh(`rm ${fs.root}/old.bin && dd if=/dev/urandom of=${fs.root}/now.bin bs=1048576 count=7 2>/dev/null`);
    const now = await sh(`md5sum ${fs.root}/now.bin`);
    // The staged copy (6 MiB) does not fit beside the current tree (7 MiB) in 12 MiB.
    await expect(fs.restore(snapshot)).rejects.toMatchObject({ code: "E_SNAPSHOT_RESTORE" });
    expect(await sh(`md5sum ${fs.root}/now.bin`)).toBe(now);
    expect((await fs.list()).map((e) => e.name)).toEqual(["now.bin"]);
    await fs.delete("now.bin");
    await fs.restore(snapshot);
    expect((await fs.stat("old.bin")).sizeBytes).toBe(6 * 1024 * 1024);
    await fs.delete("old.bin");
  });
});
