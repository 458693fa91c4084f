/**
 * The compare view's smaller things (issue 32 item 10), on a two-turn run written here: copies
 * are looked for only on request (git finds them only with -C) and their count draws an icon
 * that renders (⧉ drew an empty box); an added file's side-by-side diff is one column; the
 * view opens on the first changed text file, not on a binary one. And the editor's find panel
 * (⌘F / Ctrl+F) drawn in the app's fields and buttons, light and dark.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { InMemoryFilesystem } from "../shared/filesystem/memory/index.js";
import { Session, sessionTreeLines } from "../shared/session/session-model.js";
import { FILESYSTEM_SNAPSHOT_REF_TYPE } from "../shared/session/workspace-items.js";
import { seriousViolations } from "./support/axe.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

let dir: string;
let server: RunningServer;
const FILE = "copies-run.jsonl";

const module = (name: string) => Array.from({ length: 40 }, (_, i) => `def ${name}_${i}(value):\n    return value * ${i % 7} + ${i}\n`).join("");

/** Turn 1: one module. Turn 2: it is edited, three modules are written from it (copies at git's 50 %+), a new notes file and a binary logo are added. */
async function writeCopiesRun(target: string): Promise<void> {
  let now = Date.UTC(2026, 0, 20, 10, 0, 0);
  const session = new Session({ sessionId: "copies-run-0000-4000-8000-000000000020", tags: { agent: "templater" }, clock: () => new Date(now) });
  const fs = new InMemoryFilesystem();
  const lines: string[] = [];
  const snapshot = async (turn: number) => {
    now += 1000;
    const archive = `copies-turn-${turn}.fs.zip`;
    const summary = await fs.exportArchive(path.join(target, archive));
    session.replace(FILESYSTEM_SNAPSHOT_REF_TYPE, [{ archive_path: archive, file_count: summary.fileCount, total_bytes: summary.totalBytes }]);
    lines.push(...sessionTreeLines(session));
  };
  await fs.write("src/base_module.py", module("base"), { createParents: true });
  await snapshot(1);
  await fs.write("src/base_module.py", `${module("base")}\n# edited in turn 2\n`, { mode: "overwrite" });
  for (const name of ["one", "two", "three"]) await fs.write(`src/generated_${name}.py`, module("base").replace("def base_0(value)", `def ${name}(value)`), { createParents: true });
  await fs.write("NOTES.md", "# Notes\n\nWritten in turn 2.\n", { createParents: true });
  await fs.writeBytes("assets/logo.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 1, 2, 3]), { createParents: true });
  await snapshot(2);
  await writeFile(path.join(target, FILE), `${lines.join("\n")}\n`);
}

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-copies-"));
  await writeCopiesRun(dir);
  server = await startServer(dir);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

const compare = (query = "") => `${server.url}?file=${FILE}&line=2&view=compare&base_file=${FILE}&base_line=1${query}`;

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
]) {
  for (const theme of ["light", "dark"] as const) {
    test(`copies only on request, drawn with an icon; an added file in one column; opens on a text file (${viewport.width}×${viewport.height}, ${theme})`, async ({ page, guarded }) => {
      await page.setViewportSize(viewport);
      await page.addInitScript(`localStorage.setItem("wink-theme", ${JSON.stringify(theme)})`);
      await page.goto(compare());
      // The first changed file in the tree is assets/logo.png (binary): the view opens on the first text file, src/base_module.py, instead.
      await expect(page.getByTestId("changed-file").first()).toHaveAttribute("data-path", "assets/logo.png");
      await expect.poll(() => new URL(page.url()).searchParams.get("path")).toBe("src/base_module.py");
      const merge = page.getByTestId("merge-diff");
      await expect(merge.locator(".cm-mergeView")).toBeVisible();
      // NOTES.md is added (J steps to it, the last file of the tree): its side-by-side diff is one column, as wide as the pane.
      for (let step = 0; step < 4; step += 1) await page.keyboard.press("j");
      await expect.poll(() => new URL(page.url()).searchParams.get("path")).toBe("NOTES.md");
      await expect(merge).toBeVisible();
      await expect(merge).toHaveAttribute("data-single-side", "target");
      const editors = merge.locator(".cm-editor");
      await expect(editors).toHaveCount(1);
      const [pane, editor] = await Promise.all([merge.boundingBox(), editors.first().boundingBox()]);
      expect(editor?.width ?? 0).toBeGreaterThan((pane?.width ?? 0) * 0.9);
      await expect(merge).toContainText("Written in turn 2.");
      for (const violation of await seriousViolations(page)) expect(violation).toBe("");

      // By default (as git diff -M): no copies, the generated modules are added.
      await expect(page.locator("[data-testid=changed-file] .badge-copied")).toHaveCount(0);
      await expect(page.getByTestId("changed-files")).toContainText("generated_one.py");
      await expect(page.getByTestId("copied-count")).toHaveCount(0);
      await guarded.shot(`compare-added-${viewport.width}-${theme}`);
      // Keyboard: the toggle is a checkbox reached by focus.
      await page.getByTestId("copies-toggle").focus();
      await page.keyboard.press("Space");
      await expect.poll(() => new URL(page.url()).searchParams.get("copies")).toBe("1");
      await expect(page.locator("[data-testid=changed-file] .badge-copied")).toHaveCount(3);
      const count = page.getByTestId("copied-count");
      await expect(count).toHaveAttribute("aria-label", "3 copied");
      await expect(count).not.toContainText("⧉");
      const icon = await count.locator("svg").boundingBox();
      expect(icon?.width ?? 0).toBeGreaterThan(8);
      await expect.poll(() => new URL(page.url()).searchParams.get("path")).toBe("src/base_module.py");
      for (let step = 0; step < 4; step += 1) await page.keyboard.press("j");
      await expect.poll(() => new URL(page.url()).searchParams.get("path")).toBe("NOTES.md");
      await expect(merge).toHaveAttribute("data-single-side", "target");
      for (const violation of await seriousViolations(page)) expect(violation).toBe("");
      await guarded.shot(`compare-copies-${viewport.width}-${theme}`);

      // A deleted file (swap the sides: NOTES.md is gone) is one column too, the base's.
      await page.goto(`${server.url}?file=${FILE}&line=1&view=compare&base_file=${FILE}&base_line=2&path=NOTES.md`);
      await expect(merge).toHaveAttribute("data-single-side", "base");
      await expect(merge.locator(".cm-editor")).toHaveCount(1);
      await expect(merge).toContainText("Written in turn 2.");
    });
  }
}

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
]) {
  for (const theme of ["light", "dark"] as const) {
    test(`the find panel looks like the app (${viewport.width}×${viewport.height}, ${theme})`, async ({ page, guarded }) => {
      await page.setViewportSize(viewport);
      await page.addInitScript(`localStorage.setItem("wink-theme", ${JSON.stringify(theme)})`);
      await page.goto(`${server.url}?file=${FILE}&line=2&view=files&path=src/base_module.py`);
      const content = page.locator("[data-testid=code-view] .cm-content");
      await content.focus();
      await page.keyboard.press("Control+f");
      const panel = page.locator(".cm-panel.cm-search");
      await expect(panel).toBeVisible();
      await page.keyboard.type("base_3");
      await page.keyboard.press("Enter");
      // CodeMirror's own buttons are grey gradients, light in dark mode too; the app's are flat, on its panel colour.
      const looks = (selector: string) => page.evaluate<{ image: string; background: string; color: string; radius: string }>(`(() => { const s = getComputedStyle(document.querySelector(${JSON.stringify(selector)})); return { image: s.backgroundImage, background: s.backgroundColor, color: s.color, radius: s.borderTopLeftRadius }; })()`);
      const app = await looks(".app-header .icon-btn");
      for (const selector of [".cm-search .cm-button", ".cm-search .cm-textfield"]) {
        const drawn = await looks(selector);
        expect(drawn.image, selector).toBe("none");
        expect(drawn.background, selector).toBe(app.background);
        expect(drawn.radius, selector).toBe(app.radius);
      }
      expect((await looks(".cm-search label")).color).toBe(await page.evaluate<string>(`getComputedStyle(document.querySelector(".muted") ?? document.body).color`));
      for (const violation of await seriousViolations(page)) expect(violation).toBe("");
      await guarded.shot(`find-panel-${viewport.width}-${theme}`);
    });
  }
}
