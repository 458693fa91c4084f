import { spawn } from "node:child_process";
import * as fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { hasErrorCode } from "../../../errors.js";
import { HostDriver } from "../host-driver.js";
import { listDir, makeTempDir, mountTmpfs, remountReadOnly, treeHash, treeHashShell, unmount, writeTree } from "../host.test-support.js";
import { NEW_TREE_FILES, newTreeContent, restoreEdits } from "./tree-apply-child.test-support.js";
import {
  STAGING_PREFIX,
  applyStagedChanges,
  applyTreeChanges,
  createTreeStaging,
  hasPendingTreeChanges,
  recoverTreeChanges,
  replaceTreeContents,
  type TreeApplyOptions,
} from "./index.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const cleanup: string[] = [];
const mounts: string[] = [];
let base: string;
let root: string;
let stateDir: string;

beforeEach(async () => {
  base = await makeTempDir("wink-tree-apply-");
  cleanup.push(base);
  root = path.join(base, "ws");
  stateDir = path.join(base, "state");
  await fs.promises.mkdir(root);
});

afterEach(async () => {
  for (const dir of mounts.splice(0)) await unmount(dir);
});

afterAll(async () => {
  for (const dir of cleanup) await fs.promises.rm(dir, { recursive: true, force: true });
});

/** The old workspace the fault tests start from (overlaps the new tree's names). */
async function writeOldTree(dir: string): Promise<void> {
  const files: Record<string, string | null> = { "old-only/a.txt": "old a", "old-only/deep/b.txt": "old b", "empty-old/": null };
  for (let i = 0; i < 40; i++) files[`d${i % 7}/s${i % 3}/f${i}.txt`] = `old-${i}`;
  await writeTree(dir, files);
}

function noLeftovers(): void {
  expect(listDir(root).filter((name) => name.startsWith(STAGING_PREFIX))).toEqual([]);
  expect(listDir(stateDir).filter((name) => name !== "")).toEqual([]);
}

describe("test support", () => {
  it("treeHash agrees with fault-recipes.sh tree_hash", async () => {
    await writeTree(root, { "a b/c 1.txt": "x", "empty/": null, "Z.txt": "z", "é.txt": "e" });
    fs.symlinkSync("a b", path.join(root, "link"));
    fs.chmodSync(path.join(root, "Z.txt"), 0o750);
    expect(await treeHash(root)).toBe(await treeHashShell(root));
  });
});

describe("applyTreeChanges", () => {
  it("applies writes, deletes, directories, modes and links, keeping the root inode", async () => {
    await writeTree(root, { "keep.txt": "keep", "gone/x.txt": "x", "replace.txt": "old", "dir-to-file/y": "y" });
    const inode = fs.statSync(root).ino;
    const result = await applyTreeChanges(
      root,
      [
        { op: "write", path: "replace.txt", data: new TextEncoder().encode("new") },
        { op: "write", path: "new/deep/file.bin", data: new Uint8Array([0, 1, 2]), mode: 0o755 },
        { op: "delete", path: "gone" },
        { op: "delete", path: "dir-to-file" },
        { op: "write", path: "dir-to-file", data: new TextEncoder().encode("now a file") },
        { op: "mkdir", path: "empty", mode: 0o700 },
        { op: "symlink", path: "link", target: "keep.txt" },
        { op: "chmod", path: "keep.txt", mode: 0o600 },
        { op: "delete", path: "never-existed" },
      ],
      { stateDir },
    );
    expect(result).toMatchObject({ deleted: 2, moved: 4, created: 1, chmodded: 1 });
    expect(fs.statSync(root).ino).toBe(inode);
    expect(fs.readFileSync(path.join(root, "replace.txt"), "utf8")).toBe("new");
    expect(fs.readFileSync(path.join(root, "dir-to-file"), "utf8")).toBe("now a file");
    expect([...fs.readFileSync(path.join(root, "new/deep/file.bin"))]).toEqual([0, 1, 2]);
    expect(fs.statSync(path.join(root, "new/deep/file.bin")).mode & 0o777).toBe(0o755);
    expect(fs.statSync(path.join(root, "empty")).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(root, "keep.txt")).mode & 0o777).toBe(0o600);
    expect(fs.readlinkSync(path.join(root, "link"))).toBe("keep.txt");
    expect(fs.existsSync(path.join(root, "gone"))).toBe(false);
    noLeftovers();
  });

  it("refuses invalid plans before touching the workspace", async () => {
    await writeTree(root, { "dir/a.txt": "a", "file.txt": "f" });
    const outside = path.join(base, "outside");
    await writeTree(outside, { "secret.txt": "OUTSIDE" });
    fs.symlinkSync(outside, path.join(root, "escape"));
    const before = await treeHash(root);
    const cases: [string, Parameters<typeof applyTreeChanges>[1], string][] = [
      ["put onto a directory", [{ op: "write", path: "dir", data: new Uint8Array(1) }], "EISDIR"],
      ["write through a symlinked directory", [{ op: "write", path: "escape/secret.txt", data: new Uint8Array(1) }], "EACCES"],
      ["delete through a symlinked directory", [{ op: "delete", path: "escape/secret.txt" }], "EACCES"],
      ["mkdir over a file", [{ op: "mkdir", path: "file.txt" }], "EEXIST"],
      ["mkdir below a file", [{ op: "mkdir", path: "file.txt/sub" }], "EACCES"],
      ["chmod of a missing path", [{ op: "chmod", path: "missing", mode: 0o600 }], "ENOENT"],
      ["traversal", [{ op: "delete", path: "../outside" }], "EINVAL"],
      ["overlapping writes", [{ op: "write", path: "n", data: new Uint8Array(1) }, { op: "write", path: "n", data: new Uint8Array(1) }], "EINVAL"],
    ];
    for (const [name, edits, code] of cases) {
      const error = await applyTreeChanges(root, [{ op: "write", path: "first.txt", data: new Uint8Array(1) }, ...edits], { stateDir }).catch((e: unknown) => e);
      expect(hasErrorCode(error, code as never), `${name}: ${String(error)}`).toBe(true);
      expect(await treeHash(root), name).toBe(before);
      noLeftovers();
    }
    expect(fs.readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("OUTSIDE");
    expect(listDir(outside)).toEqual(["secret.txt"]);
  });

  it("replaces a whole tree through a staging area and cleans up", async () => {
    await writeOldTree(root);
    const staging = await createTreeStaging(root, { stateDir });
    expect(staging.insideRoot).toBe(false);
    expect(staging.treeDir.startsWith(stateDir)).toBe(true);
    await staging.writeFile("a/b.txt", new TextEncoder().encode("B"));
    await staging.mkdir("empty", 0o711);
    await staging.symlink("a/link", "b.txt");
    const result = await replaceTreeContents(staging);
    expect(result.moved).toBe(2);
    expect(listDir(root)).toEqual(["a", "empty"]);
    expect(fs.readFileSync(path.join(root, "a/b.txt"), "utf8")).toBe("B");
    expect(fs.readlinkSync(path.join(root, "a/link"))).toBe("b.txt");
    expect(fs.statSync(path.join(root, "empty")).mode & 0o777).toBe(0o711);
    noLeftovers();
  });

  it("lets external tools fill the staging tree (put sources by path)", async () => {
    await writeTree(root, { "x.txt": "old" });
    const staging = await createTreeStaging(root, { stateDir });
    fs.writeFileSync(path.join(staging.treeDir, "restored.txt"), "from a tool");
    await applyStagedChanges(staging, [{ op: "put", path: "sub/x.txt", source: "restored.txt" }, { op: "delete", path: "x.txt" }]);
    expect(fs.readFileSync(path.join(root, "sub/x.txt"), "utf8")).toBe("from a tool");
    expect(fs.existsSync(path.join(root, "x.txt"))).toBe(false);
    noLeftovers();
  });

  it("refuses a second concurrent apply on the same root", async () => {
    const first = await createTreeStaging(root, { stateDir });
    await first.writeFile("a", new Uint8Array(1));
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running = replaceTreeContents(first, { stateDir, onStep: async (step) => (step === "committed" ? gate : undefined) });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const error = await applyTreeChanges(root, [{ op: "write", path: "b", data: new Uint8Array(1) }], { stateDir }).catch((e: unknown) => e);
    expect(hasErrorCode(error, "EUNAVAILABLE")).toBe(true);
    release();
    await running;
    expect(listDir(root)).toEqual(["a"]);
  });
});

describe("crash at every step (in process), then recovery", () => {
  it("ends fully old before the commit and fully new after it, for both kinds of apply", async () => {
    const reference = path.join(base, "reference");
    await fs.promises.mkdir(reference);
    await writeOldTree(root);
    await writeOldTree(reference);
    const before = await treeHash(root);
    await applyTreeChanges(reference, restoreEdits(), { stateDir: path.join(base, "ref-state") });
    const want = await treeHash(reference);
    expect(want).not.toBe(before);

    const total = restoreEdits().length + 8;
    let sawOld = 0;
    let sawNew = 0;
    for (let crashAt = 0; crashAt < total; crashAt++) {
      let count = 0;
      const options: TreeApplyOptions = {
        stateDir,
        durable: false,
        onStep: () => {
          if (count++ === crashAt) throw new Error("simulated crash");
        },
      };
      const outcome = await applyTreeChanges(root, restoreEdits(), options).then(
        () => "completed",
        (error: unknown) => String(error),
      );
      await recoverTreeChanges(root, { stateDir });
      const after = await treeHash(root);
      expect([before, want], `crash at step ${crashAt} (${outcome})`).toContain(after);
      if (after === before) sawOld++;
      else sawNew++;
      noLeftovers();
      if (after === want) {
        await fs.promises.rm(root, { recursive: true });
        await fs.promises.mkdir(root);
        await writeOldTree(root);
      }
    }
    expect(sawOld).toBeGreaterThan(0);
    expect(sawNew).toBeGreaterThan(0);
  }, 120_000);
});

/** Run the child apply, SIGKILLed at a step or after a delay; resolves when it has exited. */
function runChild(kind: "replace" | "changes", options: { killAt?: number; delayMs?: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(here, "tree-apply-child.test-support.ts")], {
      env: {
        ...process.env,
        WINK_ROOT: root,
        WINK_STATE: stateDir,
        WINK_KIND: kind,
        ...(options.killAt === undefined ? {} : { WINK_KILL_AT: String(options.killAt) }),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (options.delayMs !== undefined && out.startsWith("ready\n") && !out.includes("armed")) {
        out += "armed";
        setTimeout(() => child.kill("SIGKILL"), options.delayMs);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve(`${signal ?? code} ${err.trim()}`));
  });
}

describe("probes left by a crash", () => {
  it("are found through their record and removed by the next recovery, also in subdirectories", async () => {
    await fs.promises.mkdir(path.join(root, "d3/s1"), { recursive: true });
    await fs.promises.writeFile(path.join(root, "d3/s1/kept.txt"), "kept");
    // A process that no longer exists, as after a kill -9 while it was probing d3/s1.
    const child = spawn("true");
    const pid = await new Promise<number>((resolve) => child.on("exit", () => resolve(child.pid as number)));
    const probe = `.wink-apply-${pid}-probe-0123456789ab`;
    await fs.promises.writeFile(path.join(root, "d3/s1", probe), "");
    await fs.promises.mkdir(stateDir, { recursive: true });
    const { createHash } = await import("node:crypto");
    const key = createHash("sha256").update(await fs.promises.realpath(root)).digest("hex").slice(0, 24);
    const record = path.join(stateDir, `${key}.probe.${probe}`);
    await fs.promises.writeFile(record, JSON.stringify({ probe, segments: [Buffer.from("d3").toString("base64"), Buffer.from("s1").toString("base64")] }));
    const result = await recoverTreeChanges(root, { stateDir });
    expect(result.removedStagings).toBe(1);
    expect(await fs.promises.readdir(path.join(root, "d3/s1"))).toEqual(["kept.txt"]);
    expect(fs.existsSync(record)).toBe(false);
  });
});

describe("kill -9 of a child process during an apply", () => {
  for (const kind of ["replace", "changes"] as const) {
    it(`${kind}: 50 kills (20 at successive steps, 30 at random moments) leave only the old or the new tree`, async () => {
      await writeOldTree(root);
      const before = await treeHash(root);
      const exit = await runChild(kind, {});
      expect(exit).toMatch(/^0/);
      const want = await treeHash(root);
      expect(want).not.toBe(before);
      if (kind === "replace") {
        for (let i = 0; i < NEW_TREE_FILES; i++) expect(fs.readFileSync(path.join(root, newTreeContent(i).path), "utf8")).toBe(newTreeContent(i).data);
      }
      const reset = async (): Promise<void> => {
        await fs.promises.rm(root, { recursive: true });
        await fs.promises.mkdir(root);
        await writeOldTree(root);
      };
      await reset();
      const seen = { old: 0, new: 0, killedMidway: 0 };
      for (let i = 0; i < 50; i++) {
        const exit = i < 20 ? await runChild(kind, { killAt: i }) : await runChild(kind, { delayMs: Math.floor(((i * 7919) % 97) * 1.5) });
        if (exit.startsWith("SIGKILL")) seen.killedMidway++;
        await recoverTreeChanges(root, { stateDir });
        expect(await hasPendingTreeChanges(root, { stateDir })).toBe(false);
        const after = await treeHash(root);
        expect([before, want], `iteration ${i}: ${exit}`).toContain(after);
        noLeftovers();
        if (after === want) {
          seen.new++;
          await reset();
        } else seen.old++;
      }
      expect(seen.old).toBeGreaterThan(0);
      expect(seen.new).toBeGreaterThan(0);
      expect(seen.killedMidway).toBeGreaterThan(30);
      console.log(`kill -9 loop (${kind}): ${JSON.stringify(seen)}`);
    }, 400_000);
  }
});

describe("full disk and read-only workspace", () => {
  it("ENOSPC while staging inside a full tmpfs root: clear error, workspace unchanged, nothing left", async () => {
    await mountTmpfs(root, "256k");
    mounts.push(root);
    await writeTree(root, { "a.txt": "a", "sub/b.txt": "b" });
    const before = await treeHash(root);
    const driver = new HostDriver({ root, stateDir });
    const big = new Uint8Array(1024 * 1024).fill(7);
    const error = await driver
      .replaceTree(async (tx) => {
        await tx.mkdir("x");
        const sink = await tx.createFile("x/big.bin");
        await sink.write(big);
        await sink.close();
      })
      .catch((e: unknown) => e);
    expect(hasErrorCode(error, "ENOSPC"), String(error)).toBe(true);
    expect(String(error)).toContain("x/big.bin");
    expect(await treeHash(root)).toBe(before);
    noLeftovers();
    // An apply that fits still works on the same (staging-inside-the-root) filesystem.
    await driver.replaceTree(async (tx) => {
      const sink = await tx.createFile("small.txt");
      await sink.write(new TextEncoder().encode("fits"));
      await sink.close();
    });
    expect(listDir(root)).toEqual(["small.txt"]);
    noLeftovers();
  });

  it("read-only root: clear EACCES (read-only file system), workspace unchanged", async () => {
    await mountTmpfs(root, "1m");
    mounts.push(root);
    await writeTree(root, { "a.txt": "a" });
    await remountReadOnly(root, true);
    const before = await treeHash(root);
    const error = await applyTreeChanges(root, [{ op: "write", path: "a.txt", data: new Uint8Array(3) }], { stateDir }).catch((e: unknown) => e);
    expect(hasErrorCode(error, "EACCES"), String(error)).toBe(true);
    expect(String(error)).toMatch(/read-only/i);
    expect(await treeHash(root)).toBe(before);
    expect(listDir(stateDir)).toEqual([]);
  });

  it("read-only directory inside the workspace: the apply fails before the commit and changes nothing", async () => {
    const lower = path.join(root, "locked");
    await fs.promises.mkdir(lower);
    await mountTmpfs(lower, "1m");
    mounts.push(lower);
    await writeTree(root, { "top.txt": "top", "locked/in.txt": "in" });
    await remountReadOnly(lower, true);
    const before = await treeHash(root);
    const error = await applyTreeChanges(root, [{ op: "write", path: "top.txt", data: new Uint8Array(1) }, { op: "write", path: "locked/in.txt", data: new Uint8Array(1) }], { stateDir }).catch((e: unknown) => e);
    // Staging lives on the root's filesystem; the put into the read-only mount cannot be a rename.
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).toMatch(/locked\/in\.txt|read-only|EXDEV|I\/O/);
    await recoverTreeChanges(root, { stateDir });
    expect(await treeHash(root)).toBe(before);
  });
});
