// The heap's growth, bounded for a server (boundHeapGrowth): under the same churn around the
// same live set, V8's own growth let the heap reach about twice what the bounded one did.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../package-root.js";

const execFileAsync = promisify(execFile);

/**
 * ~40 MiB kept alive (a ring of 20 batches of objects and strings, like parsed lines in a
 * cache), 800 batches allocated through it; prints the largest heap V8 reserved meanwhile.
 */
function churn(bounded: boolean): string {
  return `
    ${bounded ? "import { boundHeapGrowth } from './server/library/memory-pressure.ts'; boundHeapGrowth();" : ""}
    const ring = [];
    let peak = 0;
    for (let batch = 0; batch < 800; batch++) {
      ring.push(Array.from({ length: 2000 }, (_, item) => ({ text: "x".repeat(50) + item + batch })));
      if (ring.length > 20) ring.shift();
      peak = Math.max(peak, process.memoryUsage().heapTotal);
    }
    process.stdout.write(String(peak));`;
}

async function peakHeap(bounded: boolean): Promise<number> {
  const { stdout } = await execFileAsync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", churn(bounded)], { cwd: packageRoot(), env: { ...process.env, NODE_NO_WARNINGS: "1" } });
  return Number(stdout);
}

describe("boundHeapGrowth", () => {
  it("keeps the heap near what lives under churn, where V8's own growth reserves far more", async () => {
    const [unbounded, bounded] = await Promise.all([peakHeap(false), peakHeap(true)]);
    // Measured 126–136 MiB against 81–83 MiB; the margin is wide (V8 sizes its growth by speed).
    expect(bounded).toBeGreaterThan(0);
    expect(bounded).toBeLessThan(unbounded * 0.8);
  }, 120_000);
});

/** The young generation's size (new space, MiB) after churn that has V8 grow it, in a new process. */
async function newSpaceAfterChurn(bounded: boolean): Promise<number> {
  const script = `
    import { getHeapSpaceStatistics } from "node:v8";
    ${bounded ? "import { boundHeapGrowth } from './server/library/memory-pressure.ts'; boundHeapGrowth();" : ""}
    const ring = [];
    for (let batch = 0; batch < 1500; batch++) {
      ring.push(Array.from({ length: 2000 }, (_, item) => ({ text: "y" + item + batch })));
      if (ring.length > 30) ring.shift();
    }
    const space = getHeapSpaceStatistics().find((entry) => entry.space_name === "new_space");
    process.stdout.write(String((space?.space_size ?? 0) / 1048576));`;
  const { stdout } = await execFileAsync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: packageRoot(), env: { ...process.env, NODE_NO_WARNINGS: "1" } });
  return Number(stdout);
}

describe("boundHeapGrowth and the young generation", () => {
  it("keeps the young generation at its starting size, where V8 grows it to its maximum under churn", async () => {
    const [unbounded, bounded] = await Promise.all([newSpaceAfterChurn(false), newSpaceAfterChurn(true)]);
    // Measured 32 MiB against 2 MiB (node 20); the margin is wide (V8's sizes change between versions).
    expect(bounded).toBeGreaterThan(0);
    expect(bounded).toBeLessThan(unbounded / 2);
  }, 120_000);
});
