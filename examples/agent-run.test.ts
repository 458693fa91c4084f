/**
 * The example agent run, run as its README command does: what it writes must load with our
 * session reader, archive reader (and Python's zipfile) and undo store reader without errors —
 * and the bundled `examples/snapshots/` must be exactly its output.
 */
import { execFile, spawnSync } from "node:child_process";
import { readdir, readFile, rm } from "node:fs/promises";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openArchive } from "../shared/archive/reader.node.js";
import { readSessionFile } from "../shared/session/session-file.node.js";
import { buildSessionTree } from "../shared/session/session-tree.js";
import type { SessionSnapshot } from "../shared/session/snapshot-line.js";
import { findFilesystemSnapshotRef } from "../shared/session/workspace-items.js";
import { readToolCallChangesFromStore } from "../shared/undo/store-files.node.js";
import { REVIEWER_SESSION_ID, ROOT_SESSION_ID } from "./agent-run.js";

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL("./agent-run.ts", import.meta.url));
const BUNDLED = fileURLToPath(new URL("./snapshots", import.meta.url));
let out: string;
let stdout: string;

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), "wink-agent-run-"));
  ({ stdout } = await run(process.execPath, ["--import", "tsx", SCRIPT, out]));
}, 60_000);
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

async function listTree(dir: string, prefix = ""): Promise<string[]> {
  const names: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) names.push(...(await listTree(join(dir, entry.name), `${prefix}${entry.name}/`)));
    else names.push(`${prefix}${entry.name}`);
  }
  return names.sort();
}

describe("examples/agent-run.ts", () => {
  it("says what it wrote", () => {
    expect(stdout).toMatch(/3 workspace archives, 20 tool calls \(3 failed, call_012 undone\)/);
  });

  it("writes a session file our reader loads without errors: a coder with a reviewer child, one line per turn", async () => {
    const contents = await readSessionFile(join(out, `${ROOT_SESSION_ID}.jsonl`));
    expect(contents.errors).toEqual([]);
    expect(contents.snapshots.map((s) => [s.sessionId, s.validationErrors.length])).toEqual([
      [ROOT_SESSION_ID, 0],
      [ROOT_SESSION_ID, 0],
      [ROOT_SESSION_ID, 0],
      [REVIEWER_SESSION_ID, 0],
    ]);
    const tree = buildSessionTree(contents.snapshots);
    // Each line is a node; the reviewer (started in turn 3) hangs under the coder's line of that turn.
    expect(tree.roots.map((root) => [root.lineNumber, root.children.map((child) => child.sessionId)])).toEqual([
      [1, []],
      [2, []],
      [3, [REVIEWER_SESSION_ID]],
    ]);
    const last = contents.snapshots[2] as SessionSnapshot;
    const calls = last.slices.find((slice) => slice.sliceType.endsWith(":ToolInvoked"))?.items ?? [];
    expect(calls.map((item) => (item.result as { success: boolean }).success).filter((ok) => !ok)).toHaveLength(3);
  });

  it("names one archive per turn that our archive reader and Python's zipfile open", async () => {
    const contents = await readSessionFile(join(out, `${ROOT_SESSION_ID}.jsonl`));
    const seen: string[] = [];
    for (const snapshot of contents.snapshots) {
      const ref = findFilesystemSnapshotRef(snapshot);
      expect(ref?.archiveName).toMatch(/\.turn-\d\.fs\.zip$/);
      const reader = await openArchive(join(out, ref?.archiveName ?? ""));
      try {
        expect(reader.warnings).toEqual([]);
        expect(reader.files.length).toBe(ref?.fileCount);
        expect(reader.files.reduce((sum, file) => sum + file.size, 0)).toBe(ref?.totalBytes);
        const cart = new TextDecoder().decode(await reader.readFile("src/cart.ts"));
        const readme = new TextDecoder().decode(await reader.readFile("README.md"));
        expect(readme).toMatch(/## Usage/); // the clobbered README was restored before turn 2 ended
        if (ref?.archiveName?.includes("turn-1")) expect(cart).toMatch(/sum \+ item\.price, 0/);
        else expect(cart).toMatch(/item\.price \* item\.quantity/);
      } finally {
        await reader.close();
      }
      const python = spawnSync("python3", ["-c", "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); sys.exit(1 if z.testzip() else 0)", join(out, ref?.archiveName ?? "")]);
      expect(python.status, python.stderr.toString()).toBe(0);
      seen.push(ref?.archiveName ?? "");
    }
    expect(new Set(seen).size).toBe(3);
  });

  it("keeps the per-tool-call store next to it: changed files per call, the undone one marked", async () => {
    const result = await readToolCallChangesFromStore(join(out, "undo"), ROOT_SESSION_ID);
    expect(result.problems).toEqual([]);
    expect(result.byToolCallId.call_012?.undone).toBe(true);
    expect(result.byToolCallId.call_012?.files.map((file) => [file.path, file.change])).toEqual([["README.md", "modified"]]);
    expect(result.byToolCallId.call_008?.files[0]).toMatchObject({
      path: "src/cart.ts",
      change: "modified",
      before: { text: expect.stringContaining("sum + item.price, 0") },
      after: { text: expect.stringContaining("item.price * item.quantity") },
    });
    // The shell-like test run wrote its report outside the tools; the tracker caught it.
    expect(result.byToolCallId.call_007?.files.map((file) => [file.path, file.change])).toEqual([
      ["coverage", "added"],
      ["coverage/test-report.txt", "added"],
    ]);
    const reviewer = await readToolCallChangesFromStore(join(out, "undo"), REVIEWER_SESSION_ID);
    expect(reviewer.toolCalls.map((call) => [call.toolCallId, call.files.map((file) => file.path)])).toEqual([["review_004", ["REVIEW.md"]]]);
  });

  it("is what examples/snapshots/ bundles (regenerate: npx tsx examples/agent-run.ts examples/snapshots --force)", async () => {
    expect(await readFile(join(BUNDLED, `${ROOT_SESSION_ID}.jsonl`), "utf8")).toBe(await readFile(join(out, `${ROOT_SESSION_ID}.jsonl`), "utf8"));
    expect(await listTree(BUNDLED)).toEqual(await listTree(out));
    for (const name of (await listTree(out)).filter((path) => path.startsWith("undo/"))) {
      expect(await readFile(join(BUNDLED, name), "utf8"), name).toBe(await readFile(join(out, name), "utf8"));
    }
  });

  it("refuses a non-empty output directory unless --force", async () => {
    const refused = spawnSync(process.execPath, ["--import", "tsx", SCRIPT, out]);
    expect(refused.status).toBe(2);
    expect(refused.stderr.toString()).toMatch(/is not empty \(pass --force/);
  });
});
