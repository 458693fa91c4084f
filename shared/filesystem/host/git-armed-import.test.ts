/**
 * Issue 14, finding 4: an archive carrying `files/.git/config` with `core.fsmonitor` set to
 * a command, plus `HEAD`, `objects/` and `refs/`, ran that command at the next `git status`
 * anyone ran in the workspace, because import restored `.git` by default.
 *
 * git is only ever run on the armed tree inside a sandbox directory made for it (under
 * /var/tmp, so the `wink-canary` sweep of /tmp by the corpus tests keeps its meaning), with
 * the user's and system git configuration cut off and discovery stopped at the sandbox.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FIXTURES_DIR } from "../../../fixtures/paths.js";
import { HostFilesystem } from "./host-filesystem.js";
import { makeTempDir, treeHashShell } from "./host.test-support.js";

const ARMED = path.join(FIXTURES_DIR, "security-extra", "zips", "95-git-armed.zip");
const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `git status` in `workspace`, isolated from every configuration but the workspace's own. */
function gitStatusInSandbox(sandbox: string, workspace: string): void {
  expect(workspace.startsWith(`${sandbox}/`)).toBe(true);
  execFileSync("git", ["status", "--porcelain"], {
    cwd: workspace,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sandbox, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CEILING_DIRECTORIES: sandbox },
    stdio: "ignore",
    timeout: 20_000,
  });
}

describe("importing an archive with an armed .git (issue 14, finding 4)", () => {
  it("is refused by default, naming the entry, and leaves the workspace exactly as it was", async () => {
    const base = await makeTempDir("wink-git-armed-");
    made.push(base);
    mkdirSync(path.join(base, "ws"));
    const fs = new HostFilesystem({ root: path.join(base, "ws"), stateDir: path.join(base, "state"), durable: false });
    await fs.write("keep.txt", "precious\n");
    const before = await treeHashShell(path.join(base, "ws"));
    await expect(fs.importArchive(ARMED)).rejects.toMatchObject({ code: "E_ARCHIVE_ENTRY", data: { entry: "files/.git/config", reason: "git-metadata" } });
    expect(await treeHashShell(path.join(base, "ws"))).toBe(before);
    expect(existsSync(path.join(base, "ws", ".git"))).toBe(false);
  });

  it("is armed for real: imported on request, git status in a sandbox runs its command (so the refusal above matters)", async () => {
    const sandbox = mkdtempSync("/var/tmp/wink-git-sandbox-");
    made.push(sandbox);
    const workspace = path.join(sandbox, "ws");
    mkdirSync(workspace);
    const fs = new HostFilesystem({ root: workspace, stateDir: path.join(sandbox, "state"), durable: false });
    await fs.importArchive(ARMED, { allowGitMetadata: true });
    expect(readdirSync(workspace).sort()).toEqual([".git", "src"]);
    gitStatusInSandbox(sandbox, workspace);
    // core.fsmonitor = "touch wink-canary-fsmonitor-ran": git ran it in the workspace.
    expect(existsSync(path.join(workspace, "wink-canary-fsmonitor-ran"))).toBe(true);
  });
});
