/**
 * The main journey on the WINK fixtures (real files written by the original): open →
 * session tree → timeline → slice item → file at a snapshot → compare → deep-link reload →
 * back/forward → keyboard → theme; a screenshot of each main view.
 */
import { winkFixture } from "../fixtures/paths.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

const TREE_FILE = "db5c4ea2-559a-52c5-8313-741e72978682.jsonl";
const ROOT = "db5c4ea2-559a-52c5-8313-741e72978682";
const SCOUT = "07dca5ce-ff0b-548b-b731-8bcafa4a495c";
const GRANDCHILD = "8a559633-e567-5a1f-a8bc-3dfff2aad673";

let server: RunningServer;
test.beforeAll(async () => {
  server = await startServer(winkFixture("."), ["--recursive"]);
});
test.afterAll(async () => {
  await server.stop();
});

test("sessions, timeline, slice item, file, compare, deep link, keyboard and theme", async ({ page, guarded }) => {
  // The run view, named: a folder of more than one run lands on the eval.
  await page.goto(`${server.url}?view=run`);
  await expect(page.getByTestId("run-row").first()).toBeVisible();
  // Files with lines that did not load say so in the runs list.
  await expect(page.getByText("1 line did not load").first()).toBeVisible();
  await page.locator("[data-testid=run-row]", { hasText: TREE_FILE }).click();

  // Sessions of the run: children under their parent (in its snapshots), the missing child named.
  await expect(page.locator(`[data-testid=session-item][data-session="${ROOT}"]`)).toHaveClass(/depth-0/);
  await expect(page.locator(`[data-testid=session-item][data-session="${SCOUT}"]`)).toHaveClass(/depth-1/);
  await expect(page.locator(`[data-testid=session-item][data-session="${GRANDCHILD}"]`)).toHaveClass(/depth-2/);
  await expect(page.getByText("1 child session not in this file")).toBeVisible();

  await page.locator(`[data-testid=session-row][data-session="${ROOT}"]`).click();
  await expect(page.getByTestId("snapshot-session")).toHaveText(ROOT);
  await expect(page).toHaveURL(new RegExp(`file=${TREE_FILE}&line=1`));
  await page.keyboard.press("3");
  await guarded.shot("slices");

  // Timeline: errors aggregated, N jumps to a failed call, Enter opens its item.
  await page.keyboard.press("2");
  await expect(page.getByTestId("timeline-events")).toBeVisible();
  await expect(page.getByTestId("timeline-errors").locator("li")).toHaveCount(2);
  await guarded.shot("timeline");
  await page.keyboard.press("n");
  const selected = page.locator("[data-testid=timeline-event][aria-current=true]");
  await expect(selected).toHaveClass(/is-failed/);
  await expect(selected).toContainText("File does not exist");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "ToolInvoked" })).toBeVisible();
  const focusedItem = page.locator("[data-testid=item-card].is-focused");
  await expect(focusedItem).toContainText("File does not exist");
  await expect(focusedItem).toContainText("failed");

  // Item search and object filter.
  await page.keyboard.press("/");
  await page.keyboard.type("read_file");
  await expect(page.getByTestId("slice-count")).toHaveText(/^4 of 20 items/);
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("slice-count")).toHaveText("20 items");
  await page.getByTestId("object-filter").fill("success");
  await expect(page.getByTestId("slice-count")).toContainText('filtered by "success"');
  await expect(page.locator("[data-testid=item-card]").first()).not.toContainText("rendered_output");
  await page.getByTestId("object-filter").fill("");

  // A file at a snapshot (the scout's VirtualFileSystem slice).
  await page.locator(`[data-testid=session-row][data-session="${SCOUT}"]`).click();
  await page.keyboard.press("4");
  await expect(page.getByTestId("file-tree")).toBeVisible();
  await page.locator('[data-testid=tree-row][data-path="sunfish/sunfish.py"]').click();
  await expect(page.getByTestId("file-path")).toHaveText("sunfish/sunfish.py");
  await expect(page.getByTestId("code-view")).toContainText("def ");
  await page.locator(".cm-lineNumbers .cm-gutterElement", { hasText: /^12$/ }).click();
  await expect(page).toHaveURL(/at=12/);
  await guarded.shot("files");

  // Deep link: reload restores snapshot, view, file and line.
  await page.reload();
  await expect(page.getByTestId("snapshot-session")).toHaveText(SCOUT);
  await expect(page.getByTestId("file-path")).toHaveText("sunfish/sunfish.py");
  await expect(page.locator(".cm-activeLineGutter")).toHaveText("12");

  // Compare with the root line: slices changed; a slice diff is readable.
  await page.keyboard.press("5");
  await expect(page.getByTestId("base-picker")).toBeVisible();
  await page.getByTestId("base-picker").selectOption({ value: `1\n${TREE_FILE}` });
  await page.locator("[data-testid=changed-slice]", { hasText: "ReviewResponse" }).click();
  await expect(page.getByTestId("diff-title")).toHaveText("ReviewResponse");
  await expect(page.getByTestId("hunk-list")).toContainText("Castling rights");
  await guarded.shot("compare");

  // Back and forward.
  await page.goBack();
  await expect(page.getByTestId("base-picker")).toBeVisible();
  await page.goBack();
  await expect(page.getByTestId("file-tree")).toBeVisible();
  await page.goForward();
  await expect(page.getByTestId("base-picker")).toBeVisible();

  // Keyboard: help lists the keys, Esc closes; the palette jumps to a slice; [ hides the sidebar.
  await page.keyboard.press("?");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toBeVisible();
  await guarded.shot("help");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await page.keyboard.press("Control+k");
  await page.getByTestId("palette-input").fill("ReadFileResult");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "ReadFileResult" })).toBeVisible();
  await page.keyboard.press("l");
  await expect(page.getByRole("heading", { name: "VirtualFileSystem" })).toBeVisible();
  await page.keyboard.press("[");
  await expect(page.getByRole("complementary", { name: "Runs and sessions" })).toBeHidden();
  await page.keyboard.press("[");
  await page.keyboard.press("ArrowRight");
  await expect(page.getByTestId("snapshot-session")).not.toHaveText(SCOUT);

  // Theme: toggled, kept across reloads.
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  await page.getByTestId("theme-toggle").click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await page.keyboard.press("2");
  await expect(page.getByTestId("timeline-events")).toBeVisible();
  await guarded.shot("timeline-dark");
  await page.keyboard.press("d");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
});

test("search across slices and files opens the hit", async ({ page, guarded }) => {
  await page.goto(`${server.url}?file=${TREE_FILE}&line=2&view=search`);
  await page.getByRole("button", { name: "This snapshot" }).click();
  await page.getByTestId("search-input").fill("gen_moves");
  await expect(page.getByTestId("search-results")).toBeVisible();
  await guarded.shot("search");
  const fileHit = page.locator("[data-testid=search-hit]", { hasText: "sunfish/sunfish.py:" }).first();
  await fileHit.click();
  await expect(page.getByTestId("file-path")).toHaveText("sunfish/sunfish.py");
  await expect(page.locator(".cm-activeLine")).toContainText("gen_moves");
});
