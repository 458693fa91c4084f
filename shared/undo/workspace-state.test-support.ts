/** Test helpers shared by the undo and workspace tests. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Filesystem } from "../filesystem/protocol.js";

/** Every path with its kind, content and mode: the whole observable state of a workspace. */
export async function workspaceState(fs: Filesystem, dir = ""): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.list(dir)) {
    if (entry.isDirectory) {
      out[`${entry.path}/`] = "dir";
      Object.assign(out, await workspaceState(fs, entry.path));
    } else {
      const stat = await fs.stat(entry.path);
      out[entry.path] = `${Buffer.from((await fs.readBytes(entry.path)).content).toString("hex")} ${stat.mode ?? ""}`;
    }
  }
  return out;
}

/** Temporary directories for a test file: `make(prefix)`, and `cleanup()` in afterEach/afterAll. */
export function tempDirs(): { make(prefix: string): Promise<string>; cleanup(): Promise<void> } {
  const dirs: string[] = [];
  return {
    async make(prefix) {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    async cleanup() {
      for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
    },
  };
}
