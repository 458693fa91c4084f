/**
 * Child process for the kill -9 tests of tree-apply.test.ts (not part of the API).
 * Env: WINK_ROOT, WINK_STATE, WINK_KIND ("replace" | "changes"), WINK_KILL_AT (step number,
 * optional: the child SIGKILLs itself when it reaches that step). Prints "ready" first.
 */
import { HostDriver } from "../host-driver.js";
import { applyTreeChanges, type TreeApplyOptions, type TreeEdit } from "./index.js";

export const NEW_TREE_FILES = 120;

/** The intended new tree: nested files whose names overlap the old tree's. */
export function newTreeContent(i: number): { path: string; data: string; mode: number } {
  return { path: `d${i % 7}/s${i % 3}/f${i}.txt`, data: `new-${i}-${"x".repeat(i * 37)}`, mode: i % 5 === 0 ? 0o755 : 0o644 };
}

/** A diff-style change set (like a snapshot restore): edits, deletions, new dirs, a link. */
export function restoreEdits(): TreeEdit[] {
  const edits: TreeEdit[] = [];
  for (let i = 0; i < NEW_TREE_FILES; i += 2) {
    const file = newTreeContent(i);
    edits.push({ op: "write", path: file.path, data: new TextEncoder().encode(file.data), mode: file.mode });
  }
  edits.push({ op: "delete", path: "old-only" });
  edits.push({ op: "delete", path: "d1/s1/f1.txt" });
  edits.push({ op: "mkdir", path: "empty/inner", mode: 0o700 });
  edits.push({ op: "symlink", path: "latest", target: "d0" });
  return edits;
}

async function main(): Promise<void> {
  const root = process.env.WINK_ROOT as string;
  const stateDir = process.env.WINK_STATE as string;
  const killAt = process.env.WINK_KILL_AT === undefined ? -1 : Number(process.env.WINK_KILL_AT);
  let steps = 0;
  const options: TreeApplyOptions = {
    stateDir,
    onStep: () => {
      if (steps++ === killAt) process.kill(process.pid, "SIGKILL");
    },
  };
  process.stdout.write("ready\n");
  if (process.env.WINK_KIND === "changes") {
    await applyTreeChanges(root, restoreEdits(), options);
  } else {
    const driver = new HostDriver({ root, stateDir });
    // replaceTree with a hook on every step, through the same staging code the driver uses.
    const { createTreeStaging, replaceTreeContents } = await import("./index.js");
    await driver.stat("");
    const staging = await createTreeStaging(root, options);
    for (let i = 0; i < NEW_TREE_FILES; i++) {
      const file = newTreeContent(i);
      await staging.writeFile(file.path, new TextEncoder().encode(file.data), file.mode);
    }
    await staging.mkdir("empty-dir", 0o750);
    await replaceTreeContents(staging, options);
  }
  process.stdout.write(`done ${steps}\n`);
}

if (process.env.WINK_ROOT !== undefined) {
  main().catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
}
