// The launcher's loader: a CommonJS bundle runs as Node would run it, the code cache the
// build writes is accepted on the next run, and a stale or damaged cache only costs the
// compile it would have saved.
import { execFile } from "node:child_process";
import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { BUNDLE_WRAPPER } from "./code-cache.js";
import { cleanUp, tempDir } from "./server.test-support.js";

afterEach(cleanUp);

const execFileAsync = promisify(execFile);
const CODE_CACHE = path.join(import.meta.dirname, "code-cache.ts");

const BUNDLE = `#!/usr/bin/env node
const join = require("node:path").join;
function work(n) { let total = 0; for (let i = 0; i < n; i++) total += i; return total; }
console.log(JSON.stringify({ args: process.argv.slice(2), filename: __filename, dirname: __dirname, joined: join("a", "b"), exports: typeof module.exports, self: this === module.exports, total: work(10) }));
module.exports = work;
if (process.argv.includes("--throw")) throw new Error("thrown on line 6");
`;

/** Runs the bundle through `runWithCodeCache` in a child Node, as the launcher does. */
async function run(dir: string, args: string[] = [], writeCacheTo?: string): Promise<{ printed: Record<string, unknown>; result: { cacheAccepted: boolean } }> {
  const script = `
import { runWithCodeCache } from ${JSON.stringify(CODE_CACHE)};
const result = runWithCodeCache(${JSON.stringify(path.join(dir, "bundle.cjs"))}, ${JSON.stringify(path.join(dir, "bundle.cache"))}, { writeCacheTo: ${JSON.stringify(writeCacheTo)} });
console.log(JSON.stringify(result));
`;
  // A file, as the launcher is: the bundle then sees the arguments where a CLI finds them.
  const driver = path.join(dir, "driver.mts");
  await writeFile(driver, script);
  const { stdout } = await execFileAsync(process.execPath, ["--import", "tsx", driver, ...args]);
  const [printed, result] = stdout.trim().split("\n");
  return { printed: JSON.parse(printed as string) as Record<string, unknown>, result: JSON.parse(result as string) as { cacheAccepted: boolean } };
}

describe("runWithCodeCache", () => {
  it("runs a CommonJS bundle as the main module would run, writes its cache on request, and uses it next time", async () => {
    const dir = await tempDir();
    const bundle = path.join(dir, "bundle.cjs");
    const cache = path.join(dir, "bundle.cache");
    await writeFile(bundle, BUNDLE);
    const first = await run(dir, ["--version"], cache);
    expect(first.printed).toEqual({ args: ["--version"], filename: bundle, dirname: dir, joined: path.join("a", "b"), exports: "object", self: true, total: 45 });
    expect(first.result.cacheAccepted).toBe(false);
    expect((await stat(cache)).size).toBeGreaterThan(0);
    const second = await run(dir, ["x"]);
    expect(second.printed.args).toEqual(["x"]);
    expect(second.result.cacheAccepted).toBe(true);
  });

  it("compiles normally when the cache is damaged or belongs to another version of the bundle", async () => {
    const dir = await tempDir();
    const cache = path.join(dir, "bundle.cache");
    await writeFile(path.join(dir, "bundle.cjs"), BUNDLE);
    await run(dir, [], cache);
    const bytes = await readFile(cache);
    await writeFile(cache, bytes.subarray(0, bytes.length >> 1));
    expect((await run(dir)).result.cacheAccepted).toBe(false);
    await run(dir, [], cache);
    await writeFile(path.join(dir, "bundle.cjs"), BUNDLE.replace("total += i", "total += i * 2"));
    const changed = await run(dir);
    expect(changed.result.cacheAccepted).toBe(false);
    expect(changed.printed.total).toBe(90);
  });

  it("keeps line numbers of the bundle in stack traces", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "bundle.cjs"), BUNDLE);
    const failure = await run(dir, ["--throw"]).then(
      () => null,
      (error: unknown) => error as { stderr: string },
    );
    expect(failure?.stderr).toContain(`${path.join(dir, "bundle.cjs")}:6`);
    expect(failure?.stderr).toContain("thrown on line 6");
  });

  it("runs a bundle that carries the wrapper itself (as the build writes the CLI's), ASCII or not, with the file's line numbers", async () => {
    const dir = await tempDir();
    const cache = path.join(dir, "bundle.cache");
    // Line 2 opens the wrapper; the body's lines keep their numbers (the throw is on line 7).
    const wrapped = (body: string) => `#!/usr/bin/env node\n${BUNDLE_WRAPPER}const marker = ${JSON.stringify(body)};\n${BUNDLE.split("\n").slice(1).join("\n").replace("total: work(10)", "total: work(10), marker")}\n})`;
    for (const marker of ["ascii", "caf\u00e9 \u2026"]) {
      await writeFile(path.join(dir, "bundle.cjs"), wrapped(marker));
      const first = await run(dir, ["a"], cache);
      expect(first.printed).toMatchObject({ args: ["a"], filename: path.join(dir, "bundle.cjs"), self: true, total: 45, marker });
      expect((await run(dir, ["b"])).result.cacheAccepted).toBe(true);
      const failure = await run(dir, ["--throw"]).then(
        () => null,
        (error: unknown) => error as { stderr: string },
      );
      expect(failure?.stderr).toContain(`${path.join(dir, "bundle.cjs")}:7`);
    }
  });
});
