/**
 * Helpers for the host backend's tests (not part of the public API): temp dirs, the shared
 * security fixtures (copied, never modified), tree hashes with fault-recipes.sh's `tree_hash`,
 * and small tmpfs mounts for full-disk and read-only cases.
 */
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { SECURITY_FIXTURES } from "../../../fixtures/paths.js";
import type { FilesystemDriver, WalkEntry } from "../driver.js";
import type { HostDriver } from "./host-driver.js";

/** The committed copy of the security corpus (fixtures/security). */
export const SECURITY_DIR = SECURITY_FIXTURES;
const run = promisify(execFile);

export async function makeTempDir(prefix: string): Promise<string> {
  return fs.promises.mkdtemp(path.join(os.tmpdir(), prefix));
}

/** Copy a file of the security corpus into `dir` (tests never run the committed copy). */
export async function copySecurityFile(name: string, dir: string): Promise<string> {
  const target = path.join(dir, name);
  await fs.promises.copyFile(path.join(SECURITY_DIR, name), target);
  return target;
}

/** Build the sandbox fixture (DIR/root, DIR/outside, DIR/root-evil) from a private copy of the script. */
export async function buildSandboxFixture(dir: string): Promise<{ root: string; outside: string; script: string }> {
  const script = await copySecurityFile("sandbox-fixture.sh", await makeTempDir("wink-fixture-script-"));
  await run("bash", [script, dir]);
  return { root: path.join(dir, "root"), outside: path.join(dir, "outside"), script };
}

/** fault-recipes.sh `tree_hash` itself (slow: a process per file): sha256 over (path, type, mode, content hash | link target). */
export async function treeHashShell(dir: string): Promise<string> {
  const recipes = path.join(SECURITY_DIR, "fault-recipes.sh");
  const { stdout } = await run("bash", ["-c", 'source "$1" && tree_hash "$2"', "_", recipes, dir]);
  return stdout.trim();
}

/** The same fingerprint as `treeHashShell`, computed in-process (checked against it in the tests). */
export async function treeHash(dir: string): Promise<string> {
  const lines: { key: Buffer; line: string }[] = [];
  const visit = async (rel: string): Promise<void> => {
    const names = await fs.promises.readdir(rel === "" ? dir : path.join(dir, rel), { encoding: "buffer" });
    for (const name of names) {
      const childRel = rel === "" ? name.toString("utf8") : `${rel}/${name.toString("utf8")}`;
      const full = path.join(dir, childRel);
      const stats = await fs.promises.lstat(full);
      const perms = (stats.mode & 0o7777).toString(8);
      const key = Buffer.from(childRel);
      if (stats.isSymbolicLink()) lines.push({ key, line: `L ${childRel} -> ${await fs.promises.readlink(full)}` });
      else if (stats.isDirectory()) {
        lines.push({ key, line: `D ${childRel} ${perms}` });
        await visit(childRel);
      } else lines.push({ key, line: `F ${childRel} ${perms} ${createHash("sha256").update(await fs.promises.readFile(full)).digest("hex")}` });
    }
  };
  await visit("");
  // `find -printf %P | LC_ALL=C sort -z` orders by bytes of the path.
  lines.sort((a, b) => Buffer.compare(a.key, b.key));
  return createHash("sha256").update(lines.map((e) => `${e.line}\n`).join("")).digest("hex");
}

/** Every entry below `dir` whose name contains "wink-canary" (must stay empty). */
export function findCanaries(...dirs: string[]): string[] {
  const found: string[] = [];
  for (const dir of dirs) {
    const out = execFileSync("find", [dir, "-name", "*wink-canary*"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    if (out) found.push(...out.split("\n"));
  }
  return found;
}

export async function mountTmpfs(dir: string, size: string, readOnly = false): Promise<void> {
  await run("mount", ["-t", "tmpfs", "-o", `size=${size}${readOnly ? ",ro" : ""}`, "tmpfs", dir]);
}

export async function remountReadOnly(dir: string, readOnly: boolean): Promise<void> {
  await run("mount", ["-o", `remount,${readOnly ? "ro" : "rw"}`, dir]);
}

export async function unmount(dir: string): Promise<void> {
  await run("umount", ["-l", dir]).catch(() => undefined);
}

/** Write a small tree: { "a/b.txt": "text", "dir/": null (empty directory) }. */
export async function writeTree(root: string, files: Record<string, string | null>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const target = path.join(root, rel);
    if (content === null) await fs.promises.mkdir(target, { recursive: true });
    else {
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await fs.promises.writeFile(target, content);
    }
  }
}

/** Entries of a directory (sorted), or [] when it does not exist. */
export function listDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/**
 * A driver whose walk() shows only the files in `candidates`: the proposed `grepCandidates`
 * hook of DriverFilesystem.grep, emulated (tests and bench/host-grep.bench.ts).
 */
export function restrictedTo(driver: HostDriver, candidates: ReadonlySet<string>): FilesystemDriver {
  return {
    name: driver.name,
    root: driver.root,
    stat: (p) => driver.stat(p),
    readFile: (p, range) => driver.readFile(p, range),
    writeFile: (p, data, options) => driver.writeFile(p, data, options),
    list: (p) => driver.list(p),
    mkdir: (p, options) => driver.mkdir(p, options),
    remove: (p, options) => driver.remove(p, options),
    replaceTree: (fill) => driver.replaceTree(fill),
    async *walk(p: string): AsyncIterable<WalkEntry> {
      for await (const entry of driver.walk(p)) if (entry.kind !== "file" || candidates.has(entry.path)) yield entry;
    },
  };
}
