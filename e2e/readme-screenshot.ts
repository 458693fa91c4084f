/**
 * Writes the README's pictures from a failed run of our own making (`writeFailedRun`), light
 * theme, 1440×900: the landing page (docs/screenshot-run.png), a failure in context
 * (docs/screenshot-failure.png) and a rename in the compare view (docs/screenshot-rename.png).
 *
 * Run: npm run build && node --import tsx e2e/readme-screenshot.ts
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import { FAILED_RUN_RENAME, writeFailedRun } from "./fixtures/runs.js";
import { REPO, startServer } from "./support/server.js";

const parent = await mkdtemp(path.join(os.tmpdir(), "wink-readme-"));
const dir = path.join(parent, "shop-fixer-run");
const file = await writeFailedRun(dir);
const server = await startServer(dir);
const browser = await chromium.launch({ executablePath: process.env.WINK_CHROMIUM ?? "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu"] });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  await page.addInitScript(`localStorage.setItem("wink-theme", "light")`);
  const shot = async (name: string) => {
    await page.waitForTimeout(400);
    const output = path.join(REPO, "docs", name);
    await page.screenshot({ path: output });
    console.log(`wrote ${output}`);
  };
  await page.goto(server.url);
  await page.waitForSelector("[data-testid=failure-row]");
  await page.waitForSelector(".workspace-card .change-item");
  await shot("screenshot-run.png");
  await page.locator("[data-testid=failure-link]").first().click();
  await page.waitForSelector("[data-testid=detail-error]");
  await page.waitForSelector("[data-testid=event-detail] .hunk-row");
  await shot("screenshot-failure.png");
  await page.goto(`${server.url}?file=${file}&line=3&view=compare&base_file=${file}&base_line=2&path=${encodeURIComponent(FAILED_RUN_RENAME.to)}`);
  await page.waitForSelector("[data-testid=merge-diff] .cm-changedText");
  await shot("screenshot-rename.png");
} finally {
  await browser.close();
  await server.stop();
  await rm(parent, { recursive: true, force: true });
}
