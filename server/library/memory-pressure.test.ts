// The heap's growth, bounded for a server (boundHeapGrowth): under the same churn around the
// same live set, V8's own growth let the heap reach about twice what the bounded one did. The
// commands that read every run once bound it too, less tightly (COMMAND_HEAP_GROWING_PERCENT).
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { packageRoot } from "../package-root.js";
import { cleanUp, tempDir } from "../server.test-support.js";
import { COMMAND_HEAP_GROWING_PERCENT } from "./memory-pressure.js";

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

afterEach(cleanUp);

/** Records the V8 flags the process sets at run time (the ESM bindings of node:v8 included), printed on stderr at exit. */
const RECORD_FLAGS = `
  const v8 = require("node:v8");
  const set = v8.setFlagsFromString;
  const flags = [];
  v8.setFlagsFromString = (flag) => { flags.push(flag); set(flag); };
  require("node:module").syncBuiltinESMExports();
  process.on("exit", () => process.stderr.write("flags: " + JSON.stringify(flags) + "\\n"));
`;

describe("the commands that read every run", () => {
  it("bound their heap's growth (failures and index), where the bundle command and the server's --help do not", async () => {
    const preload = path.join(await tempDir(), "record-flags.cjs");
    await writeFile(preload, RECORD_FLAGS);
    const flagsOf = async (args: string[]) => {
      const { stderr } = await execFileAsync(process.execPath, ["--require", preload, "--import", "tsx", "server/cli.ts", ...args], { cwd: packageRoot(), env: { ...process.env, NODE_NO_WARNINGS: "1" } });
      return (JSON.parse(/^flags: (.*)$/m.exec(stderr)?.[1] ?? "null") as string[]).filter((flag) => flag.startsWith("--heap-growing-percent"));
    };
    const [failures, index, bundle, server] = await Promise.all([flagsOf(["failures", "--help"]), flagsOf(["index", "--help"]), flagsOf(["bundle", "--help"]), flagsOf(["--help"])]);
    const bound = `--heap-growing-percent=${COMMAND_HEAP_GROWING_PERCENT}`;
    expect(failures).toEqual([bound]);
    expect(index).toEqual([bound]);
    expect(bundle).toEqual([]);
    expect(server).toEqual([]);
  }, 120_000);
});
