/**
 * Browser tests: Debian's Chromium (no browser download), the real CLI on a free loopback
 * port, one spec per journey. `npm test` (scripts/test.mjs) sets PLAYWRIGHT_JSON_OUTPUT_NAME
 * and reads the JSON report; screenshots of each main view land in test-results/.
 */
import path from "node:path";
import { defineConfig } from "@playwright/test";

// The JSON report goes where scripts/test.mjs asks (relative to the working directory).
const jsonReport = path.resolve(process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ?? "test-results/playwright.json");

export default defineConfig({
  testDir: ".",
  testMatch: "*.spec.ts",
  outputDir: "../test-results/e2e",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 2,
  retries: process.env.CI ? 1 : 0,
  reporter: [["list"], ["json", { outputFile: jsonReport }]],
  use: {
    browserName: "chromium",
    viewport: { width: 1440, height: 900 },
    screenshot: "only-on-failure",
    trace: "off",
    launchOptions: {
      executablePath: process.env.WINK_CHROMIUM ?? "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
});
