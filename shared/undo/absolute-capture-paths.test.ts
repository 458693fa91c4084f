// Explicit capture by absolute path (the spec's example registers `paths: ["/work/src/lib.rs"]`),
// through the public entry: inside the workspace it means that file, outside it is refused and
// nothing is recorded — never captured silently as another, root-relative path.
import { mkdtemp, readFile, realpath, rm, writeFile, mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HostFilesystem, InMemoryFilesystem, UndoStore, type Filesystem } from "../index.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function tempDir(prefix: string): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}
async function storeFor(workspace: Filesystem): Promise<UndoStore> {
  return UndoStore.create({ workspace, stateDir: await tempDir("wink-undo-abs-state-") });
}

/** Capture `src/lib.rs` by `absolute`, change it, restore: the original comes back. */
async function roundTrip(fs: Filesystem, store: UndoStore, scopeId: string, absolute: string): Promise<void> {
  expect((await store.register("s", scopeId, { paths: [absolute] })).paths).toEqual(["src/lib.rs"]);
  await fs.write("src/lib.rs", "fn changed() {}\n");
  expect((await store.restore("s", scopeId)).restoredPaths).toEqual(["src/lib.rs"]);
  expect(await fs.read("src/lib.rs")).toMatchObject({ content: "fn original() {}\n" });
}

describe("explicit capture of an absolute path", () => {
  it("host: <root>/src/lib.rs is that file, captured and restored", async () => {
    const root = await tempDir("wink-undo-abs-ws-");
    await mkdir(path.join(root, "src"));
    await writeFile(path.join(root, "src/lib.rs"), "fn original() {}\n");
    const fs = new HostFilesystem({ root, stateDir: await tempDir("wink-undo-abs-tx-"), durable: false });
    const store = await storeFor(fs);
    await roundTrip(fs, store, "tc_1", path.join(root, "src/lib.rs"));
    expect(await readFile(path.join(root, "src/lib.rs"), "utf8")).toBe("fn original() {}\n");
    // The root itself names the whole workspace.
    expect((await store.register("s", "tc_2", { paths: [root] })).paths).toContain("src/lib.rs");
  });

  it("host: a path outside the root is refused with EACCES naming it, and nothing is recorded", async () => {
    const root = await tempDir("wink-undo-abs-ws-");
    const elsewhere = await tempDir("wink-undo-abs-other-");
    const fs = new HostFilesystem({ root, stateDir: await tempDir("wink-undo-abs-tx-"), durable: false });
    const store = await storeFor(fs);
    for (const outside of [path.join(elsewhere, "lib.rs"), `${root}-sibling/lib.rs`, "/work/src/lib.rs", `${root}/../escape.rs`]) {
      await expect(store.register("s", "tc_1", { paths: [outside] })).rejects.toMatchObject({ code: "EACCES", data: { path: outside, reason: "outside-workspace" } });
    }
    expect(await store.list("s")).toEqual([]);
    // Relative paths keep their meaning.
    expect((await store.register("s", "tc_1", { paths: ["src/lib.rs"] })).paths).toEqual(["src"]);
  });

  it("memory with a mount point: /workspace/src/lib.rs is that file; /etc/passwd is refused", async () => {
    const fs = new InMemoryFilesystem({ mountPoint: "/workspace" });
    await fs.write("src/lib.rs", "fn original() {}\n");
    const store = await storeFor(fs);
    await roundTrip(fs, store, "tc_1", "/workspace/src/lib.rs");
    await expect(store.register("s", "tc_2", { paths: ["/etc/passwd"] })).rejects.toMatchObject({ code: "EACCES", data: { path: "/etc/passwd" } });
    expect((await store.list("s")).map((s) => s.scopeId)).toEqual(["tc_1"]);
  });

  it("memory without a mount point: its root is /, so /src/lib.rs is src/lib.rs", async () => {
    const fs = new InMemoryFilesystem();
    await fs.write("src/lib.rs", "fn original() {}\n");
    const store = await storeFor(fs);
    await roundTrip(fs, store, "tc_1", "/src/lib.rs");
  });
});
