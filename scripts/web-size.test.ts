// The web app's size budgets (bench/web-size.ts, docs/benchmarks.md), checked on the build
// `npm test` makes: the benchmark alone exits 1 when one is exceeded, but nothing ran it, and
// the standalone page `wink-debug bundle` writes stayed over its budget for several stops.
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { webSizes } from "../bench/web-size.js";

const DIST = path.resolve(import.meta.dirname, "..", "dist");

describe("the built web app", () => {
  it("stays within every size budget, the standalone page included", async () => {
    for (const built of ["web/index.html", "web-standalone/assets"]) if (!existsSync(path.join(DIST, built))) throw new Error(`dist/${built} is not built: run \`npm run build\` first (npm test does)`);
    const { rows } = await webSizes();
    expect(rows.map((row) => row.what)).toContain("standalone (wink-debug bundle)");
    const over = rows.filter((row) => row.kb > row.budget).map((row) => `${row.what}: ${row.kb.toFixed(1)} KB, budget ${row.budget} KB`);
    expect(over).toEqual([]);
  });
});
