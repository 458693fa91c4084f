// Child of bench/host-snapshots.bench.ts: in a fresh process, opens the git snapshots of a
// workspace and restores one snapshot (the first call), then, after the parent's edits are
// replayed here, restores it again (a warm call). Prints {"first": ms, "warm": ms} on stdout.
// Usage: node bench/first-restore-child.mjs DIST_SHARED_INDEX ROOT GIT_DIR STATE_DIR SNAPSHOT_JSON EDITS_JSON
import { writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const [library, root, gitDir, stateDir, snapshotJson, editsJson] = process.argv.slice(2);
const { HostSnapshots } = await import(pathToFileURL(library).href);
const snapshot = JSON.parse(snapshotJson);
const edits = JSON.parse(editsJson);
const snapshots = new HostSnapshots(root, { strategy: "git", gitDir, treeApply: { stateDir, durable: false } });
let started = performance.now();
await snapshots.restore(snapshot);
const first = performance.now() - started;
for (const [index, rel] of edits.entries()) writeFileSync(path.join(root, rel), `edited again ${index}\n`);
started = performance.now();
await snapshots.restore(snapshot);
const warm = performance.now() - started;
process.stdout.write(`${JSON.stringify({ first, warm })}\n`);
