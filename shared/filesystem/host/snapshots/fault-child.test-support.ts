/**
 * Child process for the fault tests (restore-faults.test.ts; not part of the API): runs one
 * snapshot operation so the parent can SIGKILL it at any moment, or run it inside a mount
 * namespace where the workspace is a full tmpfs or a read-only bind mount.
 *
 * Env: WINK_OP ("restore" | "snapshot" | "recover"), WINK_ROOT, WINK_STATE, WINK_GITDIR,
 * WINK_RECORD (JSON snapshot record, for restore), WINK_FINGERPRINT ("1": fingerprint the
 * tree before and after). Prints "ready" when about to start, then one JSON line
 * {before, after, error}.
 */
import { randomUUID } from "node:crypto";

import { recoverTreeChanges } from "../tree-apply/index.js";
import type { FilesystemSnapshot } from "../../snapshot-contract.js";
import { GitSnapshotStrategy } from "./git-strategy.js";
import { fingerprint } from "./snapshot.test-support.js";

async function main(): Promise<void> {
  const op = process.env.WINK_OP ?? "restore";
  const root = process.env.WINK_ROOT as string;
  const stateDir = process.env.WINK_STATE as string;
  const git = new GitSnapshotStrategy({ root, treeApply: { stateDir, durable: false }, filesystem: null }, { gitDir: process.env.WINK_GITDIR ?? null });
  const before = process.env.WINK_FINGERPRINT === "1" ? fingerprint(root) : null;
  process.stdout.write("ready\n");
  let error: { name: string; code: string | null; message: string } | null = null;
  try {
    if (op === "restore") await git.restore(JSON.parse(process.env.WINK_RECORD as string) as FilesystemSnapshot);
    else if (op === "snapshot") await git.capture({ snapshotId: randomUUID(), createdAt: new Date().toISOString(), parentId: null, tag: "child" });
    else await recoverTreeChanges(root, { stateDir });
  } catch (caught) {
    const e = caught as { name?: string; code?: unknown; message?: string };
    error = { name: e.name ?? "Error", code: typeof e.code === "string" ? e.code : null, message: e.message ?? String(caught) };
  }
  const after = process.env.WINK_FINGERPRINT === "1" ? fingerprint(root) : null;
  process.stdout.write(`${JSON.stringify({ before, after, error })}\n`);
}

if (process.env.WINK_OP !== undefined) void main();
