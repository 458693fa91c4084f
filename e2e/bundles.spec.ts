/**
 * WINK debug bundles in the run-centred viewer, from `wink-debug DIR -r` on WINK's real
 * bundles (fixtures/wink-bundles): the failed run read error first (traceback, the failing
 * tool calls, the logs narrowed to errors, the transcript, the workspace file a failed call
 * was about); the iterations of one request compared (workspace diff, metrics, status);
 * every fixture bundle's panels with no HTTP error and the counts of index.json; a checksum
 * mismatch shown in the Manifest panel; the panels at 1440×900 and 1024×768.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Page } from "@playwright/test";
import { WINK_BUNDLE_FIXTURES } from "../fixtures/paths.js";
import { FIXTURE_INDEX, fixtureBundle } from "../shared/debug-bundle/bundle.test-support.js";
import { seriousViolations } from "./support/axe.js";
import { dropFiles } from "./support/drop.js";
import { cliCommand, startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

let dir: string;
let server: RunningServer;

const FAILED = fixtureBundle("02-failed-run");
const LONG = fixtureBundle("03-long-run");
const ITERATIONS = FIXTURE_INDEX.filter((fixture) => fixture.scenario === "06-iterations").sort((a, b) => (a.iteration ?? 0) - (b.iteration ?? 0));
const EVAL = fixtureBundle("08-eval");

/** The bundles alone (their folders kept: 08 is an EvalLoop `{request_id}/` layout), served with -r. */
async function copyBundles(target: string): Promise<void> {
  for (const fixture of FIXTURE_INDEX) {
    await mkdir(path.join(target, path.dirname(fixture.file)), { recursive: true });
    await cp(path.join(WINK_BUNDLE_FIXTURES, fixture.file), path.join(target, fixture.file));
  }
}

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-bundles-"));
  await copyBundles(dir);
  server = await startServer(dir, ["-r"]);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

const at = (file: string, query = "") => `${server.url}?file=${encodeURIComponent(file)}${query}`;

/** Records every answer of 400 or more (none is expected anywhere here). */
function httpErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("response", (response) => {
    if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
  });
  return errors;
}

test("the failed run: its error and traceback first, the failing calls, the logs narrowed to errors, the transcript", async ({ page, guarded }) => {
  const errors = httpErrors(page);
  await page.goto(at(FAILED.file));
  const failure = page.getByTestId("run-error");
  await expect(failure).toContainText(`${FAILED.error?.type}: ${FAILED.error?.message}`);
  await expect(page.getByTestId("traceback")).toContainText("raise PromptEvaluationError(");
  await expect(page.getByTestId("run-outcome")).toHaveText("6 failed");
  // The failed calls exist only in the transcript (a failed run has no after.jsonl): each with what it was about.
  const rows = page.getByTestId("failure-row");
  await expect(rows).toHaveCount(6);
  await expect(rows.first()).toContainText("read_file");
  await expect(rows.first().getByTestId("failure-argument")).toHaveText("calc-service/src/calc/parsers.py");
  await expect(rows.first()).toContainText("File not found: calc-service/src/calc/parsers.py");
  await expect(rows.nth(3).getByTestId("failure-argument")).toHaveText("../../etc/hosts");
  await expect(page.getByTestId("bundle-status")).toHaveText("error");
  await expect(page.getByTestId("no-workspace")).toContainText("no filesystem/ for a failed run");
  await guarded.shot("bundle-failed-run");

  // One click: the failing call in the transcript, its result under it.
  await rows.first().getByTestId("failure-link").click();
  await expect(page).toHaveURL(/panel=transcript/);
  const result = page.locator("[data-testid=tool-result].is-selected");
  await expect(result).toContainText("File not found: calc-service/src/calc/parsers.py");
  await expect(result).toBeInViewport();
  await guarded.shot("bundle-transcript");
  // N steps to the next failure, in the transcript too.
  await page.keyboard.press("n");
  await expect(page.locator("[data-testid=tool-result].is-selected")).toContainText("must be read before overwriting");

  // The logs (key 7), narrowed to ERROR with the level facet, the record opened.
  await page.keyboard.press("7");
  await expect(page.getByTestId("logs-count")).toHaveText(`${FAILED.log_lines} records`);
  await page.locator("[data-testid=facet-level] [data-testid=facet-keep][data-value=ERROR]").click();
  await expect(page.getByTestId("logs-count")).toHaveText(`1 of ${FAILED.log_lines} records`);
  await expect(page).toHaveURL(/facets=level%3AERROR/);
  const error = page.getByTestId("log-row");
  await expect(error).toHaveCount(1);
  await expect(error).toContainText("refusing to write outside the workspace: ../../etc/hosts");
  await error.getByRole("button").click();
  await expect(page.getByTestId("log-detail")).toContainText("bridge.handler_error");
  // Leave ERROR out instead: the other records.
  await page.locator("[data-testid=facet-level] [data-testid=facet-drop][data-value=ERROR]").click();
  await expect(page.getByTestId("logs-count")).toHaveText(`${FAILED.log_lines - 1} of ${FAILED.log_lines} records`);
  await page.getByTestId("clear-facets").click();
  // Jump to a time (an offset from the first record): the first record at or after it is selected.
  await page.getByTestId("logs-time").fill("+250ms");
  await page.getByTestId("logs-time").press("Enter");
  await expect(page.getByTestId("log-detail")).toBeVisible();
  const jumped = Number(new URL(page.url()).searchParams.get("entry"));
  expect(jumped).toBeGreaterThan(1);
  // E: the next ERROR record after it.
  await page.keyboard.press("e");
  await expect(page.locator("[data-testid=log-row][data-level=ERROR] .log-row")).toHaveAttribute("aria-expanded", "true");
  expect(Number(new URL(page.url()).searchParams.get("entry"))).toBeGreaterThan(jumped);
  await guarded.shot("bundle-logs");

  // The search view covers the logs and transcript of the bundle.
  await page.keyboard.press("6");
  await page.getByTestId("search-input").fill("etc/hosts");
  await expect(page.locator("[data-testid=bundle-hit-group][data-kind=log]")).toBeVisible();
  await expect(page.locator("[data-testid=bundle-hit-group][data-kind=transcript]")).toBeVisible();
  await page.locator("[data-testid=bundle-hit-group][data-kind=log] [data-testid=bundle-hit]").first().click();
  await expect(page).toHaveURL(/panel=logs/);
  await expect(page.getByTestId("log-detail")).toContainText("etc/hosts");
  expect(errors).toEqual([]);
});

test("a failed call's file in the captured workspace (the long run's denied write)", async ({ page }) => {
  const errors = httpErrors(page);
  await page.goto(at(LONG.file));
  const denied = page.getByTestId("failure-row").filter({ hasText: "must be read before overwriting" });
  await expect(denied.getByTestId("failure-argument")).toHaveText("payments-service/docs/adr/0001-decision.md");
  await denied.getByTestId("failure-link").click();
  await expect(page.getByTestId("event-detail")).toContainText("write_file");
  await page.getByTestId("workspace-after").click();
  await page.locator('[data-testid=tree-row][data-path="payments-service/docs/adr/0001-decision.md"]').click();
  // The write was denied: the file still says what it said before.
  await expect(page.locator(".markdown-file")).toContainText("Status: accepted");
  await expect(page.locator(".file-tree-summary")).toContainText(`${LONG.filesystem_files} files`);
  expect(errors).toEqual([]);
});

test("C on a bundle's write_file opens that file's diff across the call (no undo store); on a read_file it says the call only reads", async ({ page }) => {
  const errors = httpErrors(page);
  const second = ITERATIONS[1]?.file ?? "";
  await page.goto(at(second, "&line=2&view=timeline"));
  const list = page.getByTestId("timeline-events");
  await expect(list).toBeVisible();
  // Keyboard only: filter to the call, J selects it, C opens its diff.
  await page.keyboard.press("/");
  await page.keyboard.type("reservations.py");
  await page.keyboard.press("Escape");
  const write = page.locator("[data-testid=timeline-event]", { hasText: "write_file" }).filter({ hasText: "reservations.py" }).filter({ hasNotText: "test_" });
  await expect(write).toHaveCount(1);
  await page.locator("body").press("j");
  await expect(page.getByTestId("event-detail")).toContainText("write_file");
  await page.locator("body").press("c");
  await expect(page).toHaveURL(/view=compare/);
  const url = new URL(page.url());
  expect(url.searchParams.get("path")).toBe("src/inventory/reservations.py");
  expect(url.searchParams.get("base_file")).toBe(second);
  expect(Number(url.searchParams.get("base_line"))).toBeLessThan(Number(url.searchParams.get("line")));
  await expect(page.getByTestId("diff-title")).toContainText("src/inventory/reservations.py");
  await expect(page.getByTestId("merge-diff")).toContainText("class Reservation");

  await page.goto(at(second, "&line=2&view=timeline"));
  await expect(list).toBeVisible();
  await page.keyboard.press("/");
  await page.keyboard.type("read_file");
  await page.keyboard.press("Escape");
  await page.locator("body").press("j");
  await expect(page.getByTestId("event-detail")).toContainText("read_file");
  await page.locator("body").press("c");
  await expect(page.getByText(/read_file only reads/).first()).toBeVisible();
  await expect(page).toHaveURL(/view=timeline/);
  expect(errors).toEqual([]);
});

test("the iterations of one request: compared side by side from the run list (workspace diff, metrics, status)", async ({ page, guarded }) => {
  const errors = httpErrors(page);
  const [first, second] = ITERATIONS;
  if (first === undefined || second === undefined) throw new Error("three iterations expected");
  await page.goto(at(second.file));
  const note = page.locator("[data-testid=run-row][aria-current=page] ~ [data-testid=run-group-note]");
  await expect(note).toContainText("iteration 2 · 2 of 3 runs of its request");
  await expect(page.getByTestId("same-request-run")).toHaveCount(3);
  await note.getByTestId("compare-with-previous").click();
  await expect(page).toHaveURL(/view=compare/);
  const card = page.getByTestId("bundle-compare");
  await expect(card).toContainText("iteration 1");
  await expect(card).toContainText("iteration 2");
  await expect(card.getByTestId("status-row")).toContainText("success");
  await expect(card.locator("[data-metric='token_usage.input_tokens']")).toContainText("+3,500");
  // The workspace diff: iteration 2 deleted legacy_sync.py, added reservations.py and its test, edited docs/notes.md.
  await expect(page.locator('[data-testid=changed-file][data-path="src/inventory/legacy_sync.py"]')).toContainText("D");
  await expect(page.locator('[data-testid=changed-file][data-path="src/inventory/reservations.py"]')).toContainText("A");
  await page.locator('[data-testid=changed-file][data-path="docs/notes.md"]').click();
  await expect(page.getByTestId("merge-diff")).toContainText("nightly sync removed in iteration 2");
  await guarded.shot("bundle-compare-iterations");
  // The same comparison by URL, and any two runs: iteration 1 against iteration 3.
  const third = ITERATIONS[2];
  if (third === undefined) throw new Error("three iterations expected");
  await page.goto(at(third.file, `&line=2&view=compare&base_file=${encodeURIComponent(first.file)}&base_line=2`));
  await expect(page.getByTestId("bundle-compare")).toContainText("iteration 3");
  await expect(page.locator('[data-testid=changed-file][data-path="docs/api/reference.md"]')).toBeVisible();
  expect(errors).toEqual([]);
});

test("a bundle's workspace against its run's start says there is no workspace from before the run, lists no file as added, and still compares the slices", async ({ page, guarded }) => {
  const small = fixtureBundle("01-small-success");
  for (const [target, base] of [
    [2, 1],
    [1, 2],
  ] as const) {
    await page.goto(at(small.file, `&line=${target}&view=compare&base_file=${encodeURIComponent(small.file)}&base_line=${base}`));
    await expect(page.getByTestId("workspace-gap")).toContainText("No snapshot of the workspace from before the run");
    await expect(page.getByTestId("changed-file")).toHaveCount(0);
    // The sessions before and after the run are still compared: the first changed slice opens.
    await expect(page.getByTestId("changed-slice").first()).toBeVisible();
    await expect.poll(() => new URL(page.url()).searchParams.get("slice")).not.toBeNull();
    expect(new URL(page.url()).searchParams.get("path")).toBeNull();
  }
  await guarded.shot("bundle-compare-before-the-run");
  // The note leads to the one workspace there is.
  await page.getByTestId("workspace-gap").getByRole("link").click();
  await expect(page).toHaveURL(/view=files/);
  await expect(page.getByTestId("tree-row").first()).toBeVisible();
});

test("a bundle's workspace against another run's opens on the first text file, not the binary logo.png first in the tree, one column for an added file", async ({ page }) => {
  const small = fixtureBundle("01-small-success");
  // The long run's workspace is payments-service/: every calc-service/ file is added, assets/logo.png first.
  await page.goto(at(small.file, `&line=2&view=compare&base_file=${encodeURIComponent(LONG.file)}&base_line=2`));
  await expect(page.getByTestId("changed-file").first()).toHaveAttribute("data-path", /assets\/logo\.png$/);
  await expect.poll(() => new URL(page.url()).searchParams.get("path")).toMatch(/\.(py|md|toml|txt|cfg|json)$/);
  await expect(page.getByText("Binary file.")).toHaveCount(0);
  await expect(page.getByTestId("merge-diff")).toHaveAttribute("data-single-side", "target");
});

test("the transcript's thinking, system, usage and plan entries read as words, not JSON (1440×900 and 1024×768)", async ({ page, guarded }) => {
  const long = fixtureBundle("03-long-run");
  for (const viewport of [
    { width: 1440, height: 900 },
    { width: 1024, height: 768 },
  ]) {
    await page.setViewportSize(viewport);
    await page.goto(at(long.file, "&line=2&view=panel&panel=transcript&facets=entry_type%3Athinking,entry_type%3Asystem_event,entry_type%3Atoken_usage,entry_type%3Aunknown"));
    const entries = page.getByTestId("transcript-entry");
    await expect(entries.first()).toBeVisible();
    const thinking = page.locator("[data-testid=transcript-entry][data-type=thinking]").first();
    await expect(thinking).toBeVisible();
    for (const type of ["thinking", "system_event", "token_usage"]) {
      const entry = page.locator(`[data-testid=transcript-entry][data-type=${type}]`).first();
      await expect(entry, type).toBeVisible();
      await expect(entry, type).not.toContainText("threadId");
      await expect(entry, type).not.toContainText('{"');
    }
    await expect(page.locator("[data-testid=transcript-entry][data-type=system_event]").first()).toContainText(/Turn \d+ started|Context compacted/);
    await expect(page.locator("[data-testid=transcript-entry][data-type=token_usage]").first()).toContainText(/[\d,]+ tokens \([\d,]+ in/);
    await guarded.shot(`bundle-transcript-quiet-${viewport.width}`);
  }
});

test("every fixture bundle: each panel loads with no HTTP error and shows index.json's counts", async ({ page }) => {
  test.setTimeout(300_000);
  const errors = httpErrors(page);
  for (const fixture of FIXTURE_INDEX) {
    await page.goto(at(fixture.file));
    await expect(page.getByTestId("bundle-facts")).toBeVisible();
    const tabs = page.locator("[data-testid=panel-tabs] a");
    const ids = await tabs.evaluateAll((links) => links.map((link) => link.getAttribute("data-testid")?.replace("tab-panel-", "") ?? ""));
    expect(ids).toContain("logs");
    expect(ids.includes("eval")).toBe(fixture.has["eval.json"] === true);
    for (const id of ids) {
      await page.getByTestId(`tab-panel-${id}`).click();
      await page.locator(`[data-testid=${id}-panel], .view[data-view=panel] [data-testid=member-missing]`).first().waitFor();
      await expect(page.locator(".view[data-view=panel] .state-loading")).toHaveCount(0);
      await expect(page.locator(".view[data-view=panel] .state-error")).toHaveCount(0);
      if (id === "logs") await expect(page.getByTestId("logs-count")).toHaveText(`${fixture.log_lines.toLocaleString("en-US")} records`);
      // Read from the logs (WINK's transcript.jsonl drops entries holding U+2028: 05 has 12 lines for 19 entries).
      if (id === "transcript") await expect(page.getByTestId("transcript-count")).toHaveText(`${fixture.transcript_events_in_logs} entries`);
      if (id === "metrics") await expect(page.getByTestId(fixture.has["metrics.json"] === false ? "member-missing" : "metrics-facts").first()).toBeVisible();
      if (id === "manifest") await expect(page.getByTestId("integrity-verdict")).toHaveText(fixture.integrity_ok ? /All \d+ checksums match/ : /not match/);
    }
    await page.keyboard.press("4");
    if (fixture.filesystem_files > 0) await expect(page.locator(".file-tree-summary")).toContainText(`${fixture.filesystem_files} files`);
    else await expect(page.getByTestId("no-workspace")).toBeVisible();
  }
  expect(errors).toEqual([]);
});

test("a bundle whose member does not match its checksum says so in the Manifest panel", async ({ page }) => {
  const tampered = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-tampered-"));
  const source = fixtureBundle("01-small-success");
  const target = path.join(tampered, path.basename(source.file));
  // Python's zipfile rewrites config.json and keeps the manifest (and its checksum) as it was.
  await promisify(execFile)("python3", [
    "-c",
    "import sys, zipfile\nsrc, dst = sys.argv[1:3]\nwith zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, 'w', zipfile.ZIP_DEFLATED) as zout:\n    for info in zin.infolist():\n        data = zin.read(info.filename)\n        if info.filename.endswith('/config.json'):\n            data = data.replace(b'deflate', b'stored!')\n        zout.writestr(info, data)\n",
    path.join(WINK_BUNDLE_FIXTURES, source.file),
    target,
  ]);
  const own = await startServer(tampered);
  try {
    await page.goto(`${own.url}?file=${encodeURIComponent(path.basename(source.file))}&view=panel&panel=manifest`);
    await expect(page.getByTestId("integrity-verdict")).toHaveText(/1 member does not match the manifest's checksum/);
    await expect(page.getByTestId("integrity-mismatches")).toContainText("config.json");
    await expect(page.getByTestId("integrity-verdict")).toHaveAttribute("role", "alert");
    // The member is still shown (as read), its mismatch marked in the member list.
    await expect(page.getByTestId("member-list").locator("li.text-danger")).toHaveText(/config\.json/);
  } finally {
    await own.stop();
    await rm(tampered, { recursive: true, force: true });
  }
});

test("the panels at 1440×900 and 1024×768", async ({ page, guarded }) => {
  // Twelve page loads and screenshots: more than one test's minute on a loaded machine.
  test.slow();
  const panels: [string, string, string][] = [
    ["run", at(FAILED.file), "[data-testid=failure-row]"],
    ["logs", at(LONG.file, "&line=2&view=panel&panel=logs&facets=level%3AWARNING"), "[data-testid=log-row]"],
    ["transcript", at(LONG.file, "&line=2&view=panel&panel=transcript"), "[data-testid=transcript-entry]"],
    ["metrics", at(LONG.file, "&line=2&view=panel&panel=metrics"), "[data-testid=budget]"],
    ["environment", at(EVAL.file, "&line=1&view=panel&panel=environment"), "[data-testid=git-diff-file]"],
    ["compare", at(ITERATIONS[1]?.file ?? "", `&line=2&view=compare&base_file=${encodeURIComponent(ITERATIONS[0]?.file ?? "")}&base_line=2`), "[data-testid=bundle-compare]"],
  ];
  for (const [width, height] of [
    [1440, 900],
    [1024, 768],
  ] as const) {
    await page.setViewportSize({ width, height });
    for (const [name, url, ready] of panels) {
      await page.goto(url);
      await page.locator(ready).first().waitFor();
      await guarded.shot(`bundle-${name}-${width}x${height}`);
    }
  }
  // At 1024×768 the logs keep most of the height.
  await page.goto(panels[1]?.[1] ?? "");
  const scroller = await page.getByTestId("log-scroller").boundingBox();
  expect(scroller?.height ?? 0).toBeGreaterThan(330);
});

for (const theme of ["light", "dark"] as const) {
  test(`axe finds nothing serious on the bundle panels (${theme})`, async ({ page, guarded }) => {
    test.setTimeout(240_000);
    await page.addInitScript(`localStorage.setItem("wink-theme", ${JSON.stringify(theme)})`);
    const views: [string, string, string][] = [
      ["run", at(FAILED.file), "[data-testid=failure-row]"],
      ["logs", at(FAILED.file, "&line=1&view=panel&panel=logs&facets=level%3ADEBUG"), "[data-testid=log-row]"],
      ["logs-open", at(FAILED.file, "&line=1&view=panel&panel=logs&entry=41"), "[data-testid=log-detail]"],
      ["transcript", at(FAILED.file, "&line=1&view=panel&panel=transcript&entry=7"), "[data-testid=tool-result]"],
      ["request", at(FAILED.file, "&line=1&view=panel&panel=request"), "[data-testid=request-output] [data-testid=member-missing]"],
      ["metrics", at(LONG.file, "&line=2&view=panel&panel=metrics"), "[data-testid=budget]"],
      ["config", at(EVAL.file, "&line=1&view=panel&panel=config"), "[data-testid=member-prompt-overrides] .json-tree"],
      ["context", at(LONG.file, "&line=2&view=panel&panel=context"), "[data-testid=member-run-context] .json-tree"],
      ["eval", at(EVAL.file, "&line=1&view=panel&panel=eval"), "[data-testid=eval-score]"],
      ["environment", at(EVAL.file, "&line=1&view=panel&panel=environment"), "[data-testid=git-diff-file]"],
      ["manifest", at(EVAL.file, "&line=1&view=panel&panel=manifest"), "[data-testid=integrity-verdict]"],
      ["compare", at(ITERATIONS[1]?.file ?? "", `&line=2&view=compare&base_file=${encodeURIComponent(ITERATIONS[0]?.file ?? "")}&base_line=2`), "[data-testid=bundle-compare]"],
      ["search", at(FAILED.file, "&line=1&view=search&q=parser.py"), "[data-testid=bundle-hit]"],
    ];
    const found: string[] = [];
    for (const [name, url, ready] of views) {
      await page.goto(url);
      await page.locator(ready).first().waitFor();
      await page.waitForTimeout(300);
      for (const violation of await seriousViolations(page)) found.push(`${name}: ${violation}`);
      await guarded.shot(`a11y-bundle-${name}-${theme}`);
    }
    expect(found).toEqual([]);
  });
}

test("the panels are reachable by keyboard: 7-9 and 0, then Tab into the panel", async ({ page }) => {
  await page.goto(at(FAILED.file));
  await page.getByTestId("failure-row").first().waitFor();
  await page.locator("body").press("8");
  await expect(page.getByTestId("transcript-panel")).toBeVisible();
  await page.locator("body").press("9");
  await expect(page.getByTestId("request-panel")).toBeVisible();
  await page.locator("body").press("0");
  await expect(page.getByTestId("metrics-panel")).toBeVisible();
  await page.locator("body").press("7");
  await expect(page.getByTestId("logs-panel")).toBeVisible();
  // The facet buttons take focus and toggle with the keyboard.
  const keep = page.locator("[data-testid=facet-level] [data-testid=facet-keep][data-value=WARNING]");
  await keep.focus();
  await page.keyboard.press("Enter");
  await expect(keep).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("logs-count")).toHaveText(`2 of ${FAILED.log_lines} records`);
  // J/K move through the shown records, opening each.
  const warnings = page.locator("[data-testid=log-row][data-level=WARNING]");
  await page.keyboard.press("j");
  await expect(warnings.first().locator(".log-row")).toHaveAttribute("aria-expanded", "true");
  await page.keyboard.press("j");
  await expect(warnings.nth(1).locator(".log-row")).toHaveAttribute("aria-expanded", "true");
  await expect(warnings.first().locator(".log-row")).toHaveAttribute("aria-expanded", "false");
  await page.keyboard.press("k");
  await expect(warnings.first().locator(".log-row")).toHaveAttribute("aria-expanded", "true");
  // The palette lists the panels too.
  await page.keyboard.press("Control+k");
  await page.getByTestId("palette-input").fill("Go to Environment");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/panel=environment/);
});

test("offline: a dropped bundle, and a bundled HTML file of a request's iterations, show the same panels", async ({ page, guarded }) => {
  const errors = httpErrors(page);
  await page.goto(`${server.url}?view=run`);
  await page.getByTestId("run-row").first().waitFor();
  await dropFiles(page, path.join(WINK_BUNDLE_FIXTURES, path.dirname(FAILED.file)), [path.basename(FAILED.file)]);
  await expect(page.getByText("offline")).toBeVisible();
  await expect(page.getByTestId("run-error")).toContainText(FAILED.error?.type ?? "");
  await expect(page.getByTestId("failure-row")).toHaveCount(6);
  await page.keyboard.press("7");
  await expect(page.getByTestId("logs-count")).toHaveText(`${FAILED.log_lines} records`);
  await page.locator("[data-testid=facet-level] [data-testid=facet-keep][data-value=ERROR]").click();
  await expect(page.getByTestId("log-row")).toContainText("refusing to write outside the workspace");
  await page.keyboard.press("8");
  await expect(page.getByTestId("transcript-count")).toHaveText(`${FAILED.transcript_events_in_logs} entries`);
  await guarded.shot("bundle-offline-drop");

  // wink-debug bundle DIR -o run.html: one file carrying the three iterations, opened from file:// with no network.
  const output = path.join(dir, "..", `${path.basename(dir)}-iterations.html`);
  const { command, args } = cliCommand(["bundle", path.join(WINK_BUNDLE_FIXTURES, "06-iterations"), "-o", output]);
  await promisify(execFile)(command, args);
  try {
    await page.route(/^https?:/, (route) => route.abort());
    const [first, second] = ITERATIONS;
    if (first === undefined || second === undefined) throw new Error("iterations");
    const name = (file: string) => path.basename(file);
    await page.goto(`file://${output}#file=${encodeURIComponent(name(second.file))}&line=2&view=compare&base_file=${encodeURIComponent(name(first.file))}&base_line=2`);
    await expect(page.getByTestId("bundle-compare")).toContainText("iteration 2");
    await expect(page.locator('[data-testid=changed-file][data-path="src/inventory/reservations.py"]')).toBeVisible();
    await page.keyboard.press("7");
    await expect(page.getByTestId("logs-count")).toHaveText(`${second.log_lines} records`);
    await page.keyboard.press("1");
    await expect(page.getByTestId("same-request-run")).toHaveCount(3);
  } finally {
    await rm(output, { force: true });
  }
  expect(errors).toEqual([]);
});
