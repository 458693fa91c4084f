import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["shared/**/*.test.ts", "server/**/*.test.ts", "web/**/*.test.ts", "web/**/*.test.tsx", "examples/**/*.test.ts", "scripts/**/*.test.ts"],
    exclude: ["node_modules", "dist", "e2e"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // A temporary XDG_CACHE_HOME per test file: nothing is written into the real ~/.cache.
    setupFiles: ["server/cache-home.test-support.ts"],
    // The JSON report feeds the "N passed, N failed" line that CI reads (scripts/test.mjs).
    reporters: ["default", ["json", { outputFile: ".test-results/vitest.json" }]],
  },
});
