/**
 * Writes docs/screenshot.png (the README's picture): the compare view of a writer-produced
 * run, base turn 1 against turn 3, the 5,000-line file side by side, light theme.
 *
 * Run: npm run build && node --import tsx e2e/readme-screenshot.ts
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import { BIG_FILE, writeMultiTurnRun } from "./fixtures/runs.js";
import { REPO, startServer } from "./support/server.js";

const parent = await mkdtemp(path.join(os.tmpdir(), "wink-readme-"));
const dir = path.join(parent, "agent-run");
const file = await writeMultiTurnRun(dir);
const server = await startServer(dir);
const browser = await chromium.launch({ executablePath: process.env.WINK_CHROMIUM ?? "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu"] });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  await page.addInitScript(`localStorage.setItem("wink-theme", "light")`);
  await page.goto(`${server.url}?file=${file}&line=5&view=compare&base_file=${file}&base_line=1&path=${encodeURIComponent(BIG_FILE)}`);
  await page.waitForSelector("[data-testid=merge-diff] .cm-changedText");
  await page.waitForTimeout(300);
  const output = path.join(REPO, "docs", "screenshot.png");
  await page.screenshot({ path: output });
  console.log(`wrote ${output}`);
} finally {
  await browser.close();
  await server.stop();
  await rm(parent, { recursive: true, force: true });
}
