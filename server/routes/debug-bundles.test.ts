// WINK debug bundles served over HTTP (inject): every fixture bundle through every route
// with no unexpected status and the counts of index.json; WINK's 404s; folders of bundles,
// a bundle given directly and the EvalLoop layout; grouping, compare, search; hostile bundles.
import { cp, readdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WINK_BUNDLE_FIXTURES } from "../../fixtures/paths.js";
import { FIXTURE_INDEX, fixtureBundle, lieAboutSize, writeCraftedZip } from "../../shared/debug-bundle/bundle.test-support.js";
import { parsePythonJson } from "../../shared/session/index.js";
import { FIXTURES, cleanUp, get, post, snapshotLine, tempDir, testApp, writeSession } from "../server.test-support.js";
import type { WinkApp } from "../app.js";

afterEach(cleanUp);

/** The iteration bundles, oldest first by the `_YYYYmmdd_HHMMSS` in their names. */
const ITERATIONS_BY_NAME = FIXTURE_INDEX.filter((fixture) => fixture.scenario === "06-iterations")
  .map((fixture) => fixture.file)
  .sort((a, b) => (a.slice(-19) < b.slice(-19) ? -1 : 1));

const q = (file: string) => `file=${encodeURIComponent(file)}`;

/** GET that must answer `expected` (200 by default); returns the parsed body. */
async function json<T>(app: WinkApp, url: string, expected = 200): Promise<T> {
  const response = await get(app, url);
  expect(response.statusCode, `${url}: ${response.body.slice(0, 300)}`).toBe(expected);
  return parsePythonJson(response.body) as T;
}

interface Page {
  total: number;
  entries: Record<string, unknown>[];
}

describe("every fixture bundle over HTTP", () => {
  it("answers every route with the counts of index.json and 404 only where WINK does", async () => {
    const app = await testApp({ path: WINK_BUNDLE_FIXTURES, recursive: true });
    const statuses: string[] = [];
    const check = async <T>(url: string, expected = 200): Promise<T> => {
      const response = await get(app, url);
      if (response.statusCode !== expected) statuses.push(`${url} → ${response.statusCode} ${response.body.slice(0, 200)}`);
      return parsePythonJson(response.body) as T;
    };
    const listed = await check<{ files: { path: string; status: string; snapshot_count: number }[] }>("/api/files?wait=1");
    // (index.json beside them is listed too, as any .json file is: it just is not a session.)
    expect(listed.files.filter((file) => file.path.endsWith(".zip")).map((file) => file.path).sort()).toEqual(FIXTURE_INDEX.map((fixture) => fixture.file).sort());
    expect(listed.files.filter((file) => file.path.endsWith(".zip")).every((file) => file.status === "ready")).toBe(true);
    for (const fixture of FIXTURE_INDEX) {
      const file = q(fixture.file);
      const has = (member: string) => fixture.has[member] === true;
      const meta = await check<{ status: string; bundle_id: string; line_number: number; slices: { slice_type: string; count: number }[] }>(`/api/meta?${file}`);
      expect(meta.status).toBe(fixture.status);
      expect(meta.line_number).toBe(has("session/after.jsonl") ? 2 : 1);
      for (const slice of meta.slices) {
        const page = await check<{ items: unknown[] }>(`/api/slices/${encodeURIComponent(slice.slice_type)}?${file}`);
        expect(page.items).toHaveLength(slice.count);
      }
      if (has("session/after.jsonl")) expect(meta.slices.reduce((sum, slice) => sum + slice.count, 0)).toBe(fixture.wink_query_counts.session_slices);
      const logs = await check<Page>(`/api/logs?${file}&limit=50`);
      expect(logs.total).toBe(fixture.log_lines);
      const facets = await check<{ levels: { name: string; count: number }[] }>(`/api/logs/facets?${file}`);
      expect(Object.fromEntries(facets.levels.map((level) => [level.name, level.count]))).toEqual(fixture.log_levels);
      expect((await check<Page>(`/api/transcript?${file}&limit=20`)).total).toBe(fixture.transcript_events_in_logs);
      await check(`/api/transcript/facets?${file}`);
      await check(`/api/environment?${file}`);
      await check(`/api/manifest?${file}`);
      await check(`/api/config?${file}`, has("config.json") ? 200 : 404);
      await check(`/api/metrics?${file}`, has("metrics.json") ? 200 : 404);
      const error = await check<{ type?: string; message?: string }>(`/api/error?${file}`, has("error.json") ? 200 : 404);
      if (fixture.error !== null) expect({ type: error.type, message: error.message }).toEqual(fixture.error);
      await check(`/api/bundle/run-context?${file}`, has("run_context.json") ? 200 : 404);
      await check(`/api/bundle/eval?${file}`, has("eval.json") ? 200 : 404);
      await check(`/api/bundle/prompt-overrides?${file}`, has("prompt_overrides.json") ? 200 : 404);
      const summary = await check<{ status: string; error: unknown; iteration: number | null }>(`/api/bundle?${file}`);
      expect(summary.iteration).toBe(fixture.iteration);
      const request = await check<{ input: unknown; output: unknown }>(`/api/bundle/request?${file}`);
      expect(request.output === null).toBe(!has("request/output.json"));
      expect((await check<{ ok: boolean }>(`/api/bundle/integrity?${file}`)).ok).toBe(fixture.integrity_ok);
      const members = await check<string[]>(`/api/bundle/files?${file}`);
      expect(members).toHaveLength(fixture.zip_entries);
      for (const member of members) await check(`/api/files/${member.split("/").map(encodeURIComponent).join("/")}?${file}`);
      const tree = await check<{ path: string }[]>(`/api/filesystem/tree?${file}`);
      expect(tree).toHaveLength(fixture.filesystem_files);
      for (const entry of tree) await check(`/api/filesystem/file?${file}&path=${encodeURIComponent(entry.path)}`);
      await check(`/api/filesystem/meta?${file}`);
      await check(`/api/filesystem/browse?${file}`);
      await check(`/api/timeline?${file}`);
      await check(`/api/entries?${file}`);
      await check(`/api/raw?${file}`);
      await check(`/api/search?${file}&q=calc`);
    }
    await check("/api/bundles");
    await check("/api/bundles/groups");
    await check("/api/bundles/search?q=ZeroDivisionError");
    expect(statuses).toEqual([]);
    // Nothing was written next to the bundles (WINK writes <bundle>.zip.sqlite).
    const written = await readdir(WINK_BUNDLE_FIXTURES, { recursive: true });
    expect(written.filter((name) => /sqlite|\.tmp|cache/i.test(name))).toEqual([]);
  });

  it("answers 404 where WINK answers 404", async () => {
    const failed = fixtureBundle("02-failed-run");
    const app = await testApp({ path: path.join(WINK_BUNDLE_FIXTURES, failed.file) });
    expect((await get(app, "/api/config")).statusCode).toBe(404);
    expect(JSON.parse((await get(app, "/api/metrics")).body)).toEqual({ detail: "Metrics not found in bundle", code: "WD_ERR_NOT_FOUND" });
    expect(JSON.parse((await get(app, "/api/error")).body)).toMatchObject({ type: "PromptEvaluationError" });
    expect((await get(app, "/api/slices/no.such%3AType")).statusCode).toBe(404);
    expect((await get(app, "/api/files/no/such/member.json")).statusCode).toBe(404);
    expect((await get(app, "/api/files/..%2Fmanifest.json")).statusCode).toBe(400);
    // The failed run's session is its before.jsonl.
    expect(await json(app, "/api/meta")).toMatchObject({ status: "error", line_number: 1, bundle_id: "e523fd0d-e949-41b5-8de3-f0b1f5920007" });
    const timeline = await json<{ snapshots: unknown[] }>(app, "/api/timeline");
    expect(timeline.snapshots).toHaveLength(1);
    expect((await json<{ source: unknown }>(app, "/api/filesystem/meta")).source).toBeNull();
  });

  it("pages logs with WINK's comma-list filters, exclusions, search and time navigation", async () => {
    const long = fixtureBundle("03-long-run");
    const app = await testApp({ path: path.join(WINK_BUNDLE_FIXTURES, long.file) });
    const warnings = await json<Page>(app, "/api/logs?level=warning,error&limit=5");
    expect(warnings.total).toBe(652);
    expect(warnings.entries).toHaveLength(5);
    const facets = await json<{ loggers: { name: string; count: number }[] }>(app, "/api/logs/facets");
    const [first, second] = facets.loggers;
    if (first === undefined || second === undefined) throw new Error("facets");
    expect((await json<Page>(app, `/api/logs?logger=${encodeURIComponent(`${first.name},${second.name}`)}&limit=0`)).total).toBe(first.count + second.count);
    expect((await json<Page>(app, `/api/logs?exclude_logger=${encodeURIComponent(first.name)}&limit=0`)).total).toBe(long.log_lines - first.count);
    const all = await json<Page>(app, "/api/logs?offset=3000&limit=1");
    const at = String(all.entries[0]?.timestamp);
    const jumped = await json<Page & { offset: number }>(app, `/api/logs?at=${encodeURIComponent(at)}&limit=3`);
    expect(jumped.offset).toBeLessThanOrEqual(3000);
    expect(Date.parse(String(jumped.entries[0]?.timestamp))).toBeGreaterThanOrEqual(Date.parse(at));
    expect((await get(app, "/api/logs?at=yesterday")).statusCode).toBe(400);
    expect((await get(app, "/api/logs?offset=-1")).statusCode).toBe(400);
    // A deep link to a record: the page starts at that line among the matching records.
    const byLine = await json<Page & { offset: number }>(app, "/api/logs?at_line=3001&limit=2");
    expect(byLine.offset).toBe(3000);
    expect(byLine.entries.map((entry) => entry.line_number)).toEqual([3001, 3002]);
    const warningAfter = await json<Page & { offset: number }>(app, "/api/logs?level=warning&at_line=3001&limit=1");
    expect(Number(warningAfter.entries[0]?.line_number)).toBeGreaterThanOrEqual(3001);
    expect(warningAfter.entries[0]?.level).toBe("WARNING");
    const entry = await json<Page & { offset: number }>(app, "/api/transcript?at_rowid=100&exclude_entry_type=tool_result&limit=1");
    expect(Number(entry.entries[0]?.rowid)).toBeGreaterThanOrEqual(100);
    expect(entry.entries[0]?.entry_type).not.toBe("tool_result");
    expect((await get(app, "/api/logs?at_line=0")).statusCode).toBe(400);
  });
});

describe("a bundle's run", () => {
  it("is a bundle run: error.json first, the transcript's failed calls, panels, and the search of its logs by regex", async () => {
    const app = await testApp({ path: WINK_BUNDLE_FIXTURES, recursive: true });
    const runs = await json<{ runs: { source: { kind: string; path: string }; stats: { outcome: string } }[] }>(app, "/api/runs");
    for (const fixture of FIXTURE_INDEX) expect(runs.runs.find((run) => run.source.path === fixture.file)?.source.kind).toBe("bundle");
    const failed = fixtureBundle("02-failed-run");
    const run = await json<{ error: { type: string; traceback: string }; failures: { title: string; transcript_rowid: number | null; event_index: number | null }[]; panels: { id: string }[] }>(app, `/api/run?${q(failed.file)}`);
    expect(run.error.type).toBe(failed.error?.type);
    expect(run.error.traceback).toContain("Traceback (most recent call last)");
    expect(run.failures).toHaveLength(6);
    expect(run.failures[0]).toMatchObject({ title: "read_file", event_index: null });
    // The rowid names the failing tool_result in the transcript.
    const rowid = run.failures[0]?.transcript_rowid ?? 0;
    const result = await json<Page>(app, `/api/transcript?${q(failed.file)}&at_rowid=${rowid}&limit=1`);
    expect(result.entries[0]).toMatchObject({ rowid, entry_type: "tool_result", tool_name: "read_file" });
    expect(run.panels.map((panel) => panel.id)).toEqual(["logs", "transcript", "request", "metrics", "config", "context", "environment", "manifest"]);
    const hits = await json<{ hits: { kind: string }[] }>(app, `/api/bundles/search?${q(failed.file)}&in=bundle&scope=logs,transcript&regex=1&q=${encodeURIComponent("refusing to write outside .+hosts")}`);
    expect(hits.hits.map((hit) => hit.kind)).toContain("log");
    expect(hits.hits.map((hit) => hit.kind)).toContain("transcript");
    const invalid = await get(app, `/api/bundles/search?${q(failed.file)}&in=bundle&regex=1&q=${encodeURIComponent("(unclosed")}`);
    expect(invalid.statusCode).toBe(400);
    expect(invalid.body).toContain("Invalid regex");
  });
});

describe("discovery", () => {
  it("serves a folder of bundles, groups one request's iterations and compares them", async () => {
    const app = await testApp({ path: path.join(WINK_BUNDLE_FIXTURES, "06-iterations") });
    const bundles = await json<{ path: string; selected: boolean }[]>(app, "/api/bundles");
    expect(bundles).toHaveLength(3);
    expect(bundles.filter((bundle) => bundle.selected)).toHaveLength(1);
    const groups = await json<{ key: string; bundles: { path: string; iteration: number }[] }[]>(app, "/api/bundles/groups");
    expect(groups).toHaveLength(1);
    expect(groups[0]?.key).toBe("trace_id");
    expect(groups[0]?.bundles.map((bundle) => bundle.iteration)).toEqual([1, 2, 3]);
    const [one, two] = groups[0]?.bundles ?? [];
    if (one === undefined || two === undefined) throw new Error("group");
    // Without a base: the previous iteration.
    const compared = await json<{ base: { path: string }; same_group: boolean; files: { changes: { path: string; status: string }[] }; metrics: { metric: string; delta: number | null }[] }>(app, `/api/bundles/compare?target_file=${encodeURIComponent(two.path)}`);
    expect(compared.base.path).toBe(one.path);
    expect(compared.same_group).toBe(true);
    const changes = Object.fromEntries(compared.files.changes.map((change) => [change.path, change.status]));
    expect(changes).toMatchObject({ "src/inventory/legacy_sync.py": "deleted", "src/inventory/reservations.py": "added", "tests/test_reservations.py": "added", "docs/notes.md": "modified" });
    expect(compared.metrics.find((metric) => metric.metric === "token_usage.input_tokens")?.delta).not.toBeNull();
    // The same workspace diff through the snapshot diff routes, each bundle's after line a side.
    const diff = await json<{ files: { deleted: number; added: number } }>(app, `/api/diff?base_file=${encodeURIComponent(one.path)}&base_line=2&target_file=${encodeURIComponent(two.path)}&target_line=2`);
    expect(diff.files).toMatchObject({ deleted: 1, added: 2 });
    const fileDiff = await json<{ status: string; hunks: unknown[] }>(app, `/api/diff/file?base_file=${encodeURIComponent(one.path)}&base_line=2&target_file=${encodeURIComponent(two.path)}&target_line=2&path=docs/notes.md`);
    expect(fileDiff.status).toBe("modified");
    expect(fileDiff.hunks.length).toBeGreaterThan(0);
    expect((await get(app, `/api/bundles/compare?target_file=${encodeURIComponent(one.path)}`)).statusCode).toBe(400);
    // Search across the request's bundles: logs, transcript, members, slices and files.
    const search = await json<{ hits: { bundle: string; kind: string }[] }>(app, `/api/bundles/search?q=reservation&in=group&${q(two.path)}&limit=1000`);
    expect(new Set(search.hits.map((hit) => hit.kind))).toEqual(new Set(["log", "transcript", "member", "slice", "file"]));
    expect(new Set(search.hits.map((hit) => hit.bundle)).size).toBeGreaterThan(1);
    expect((await get(app, "/api/bundles/search?q=x&scope=logs,nope")).statusCode).toBe(400);
  });

  it("lists bundles by the timestamp WINK puts in their names, not by their file dates", async () => {
    const dir = await tempDir();
    const names = ITERATIONS_BY_NAME.map((file) => path.basename(file));
    // Copied in reverse, as a copy or an unpacked archive does: the oldest run gets the newest file date.
    for (const [index, file] of ITERATIONS_BY_NAME.entries()) {
      const target = path.join(dir, path.basename(file));
      await cp(path.join(WINK_BUNDLE_FIXTURES, file), target);
      const when = new Date(Date.UTC(2030, 0, 1) - index * 3_600_000);
      await utimes(target, when, when);
    }
    const app = await testApp({ path: dir });
    const listed = await json<{ runs: { source: { path: string } }[] }>(app, "/api/runs");
    expect(listed.runs.map((run) => run.source.path)).toEqual([...names].reverse());
  });

  it("lands on the newest failed run, not on the newer successful one beside it", async () => {
    const dir = await tempDir();
    const failed = fixtureBundle("02-failed-run");
    const newer = FIXTURE_INDEX.filter((fixture) => fixture.status === "success" && fixture.file.slice(-19) > failed.file.slice(-19));
    expect(newer.length).toBeGreaterThan(1);
    for (const fixture of [failed, ...newer]) await cp(path.join(WINK_BUNDLE_FIXTURES, fixture.file), path.join(dir, path.basename(fixture.file)));
    const app = await testApp({ path: dir });
    const listed = await json<{ runs: { source: { path: string } }[] }>(app, "/api/runs");
    expect(listed.runs[0]?.source.path).not.toBe(path.basename(failed.file));
    const landing = await json<{ source: { path: string }; error: { type: string } | null }>(app, "/api/run");
    expect(landing.source.path).toBe(path.basename(failed.file));
    expect(landing.error?.type).toBe("PromptEvaluationError");
    // With no run that failed as a whole, the newest with a failed call.
    const calm = await tempDir();
    for (const fixture of newer) await cp(path.join(WINK_BUNDLE_FIXTURES, fixture.file), path.join(calm, path.basename(fixture.file)));
    const calmApp = await testApp({ path: calm });
    // Of the runs that succeeded, 05 (a failed search) and 03 (three failed calls) had calls
    // that failed: the newer of them is opened, not 08, the newest.
    expect((await json<{ source: { path: string } }>(calmApp, "/api/run")).source.path).toBe(path.basename(fixtureBundle("05-odd-values").file));
    const quiet = await tempDir();
    for (const fixture of FIXTURE_INDEX.filter((candidate) => candidate.scenario === "06-iterations")) await cp(path.join(WINK_BUNDLE_FIXTURES, fixture.file), path.join(quiet, path.basename(fixture.file)));
    // With no failed run at all, the newest run.
    expect((await json<{ source: { path: string } }>(await testApp({ path: quiet }), "/api/run")).source.path).toBe(path.basename(ITERATIONS_BY_NAME[ITERATIONS_BY_NAME.length - 1] ?? ""));
  });

  it("lists a JSON document beside the runs as not a session file, not as a run whose lines did not load", async () => {
    const dir = await tempDir();
    await cp(path.join(WINK_BUNDLE_FIXTURES, "index.json"), path.join(dir, "truth.json"));
    await cp(path.join(WINK_BUNDLE_FIXTURES, fixtureBundle("01-small-success").file), path.join(dir, "run.zip"));
    await writeFile(path.join(dir, "broken.jsonl"), "{not json\n");
    const app = await testApp({ path: dir });
    await json(app, "/api/files?wait=1");
    const runs = (await json<{ runs: { source: { path: string }; state: string; problem: string | null; load_errors: number; stats: { outcome: string } }[] }>(app, "/api/runs")).runs;
    const byPath = new Map(runs.map((run) => [run.source.path, run]));
    expect(byPath.get("truth.json")).toMatchObject({ state: "not_session", load_errors: 0, stats: { outcome: "ok" }, problem: expect.stringMatching(/^Not a session file/) });
    // A session file whose lines do not load is still a broken run.
    expect(byPath.get("broken.jsonl")).toMatchObject({ state: "error", load_errors: 1, stats: { outcome: "failed" } });
    expect(byPath.get("run.zip")?.state).toBe("ready");
  });

  it("serves a bundle given directly, and the EvalLoop layout with -r", async () => {
    const evaluation = fixtureBundle("08-eval");
    const direct = await testApp({ path: path.join(WINK_BUNDLE_FIXTURES, evaluation.file) });
    expect(await json(direct, "/api/meta")).toMatchObject({ bundle_id: "7cb96be5-fd3b-4479-b08c-2148288810d1", request_id: "", line_number: 1 });
    const evalRoot = path.join(WINK_BUNDLE_FIXTURES, "08-eval");
    const recursive = await testApp({ path: evalRoot, recursive: true });
    expect((await json<unknown[]>(recursive, "/api/bundles")).length).toBe(1);
    await expect(testApp({ path: evalRoot })).rejects.toThrow(/No session files or debug bundles found/);
  });

  it("lists bundles beside session files and archives, and does not take an archive for a bundle", async () => {
    const dir = await tempDir();
    await cp(path.join(FIXTURES, "fszip-pr633"), dir, { recursive: true });
    const failed = fixtureBundle("02-failed-run");
    await cp(path.join(WINK_BUNDLE_FIXTURES, failed.file), path.join(dir, "failed.zip"));
    await writeFile(path.join(dir, "other.zip"), "PK not a bundle");
    const app = await testApp({ path: dir });
    const files = await json<{ files: { path: string }[] }>(app, "/api/files?wait=1");
    const names = files.files.map((file) => file.path);
    expect(names).toContain("failed.zip");
    expect(names.some((name) => name.endsWith(".jsonl"))).toBe(true);
    expect(names.filter((name) => name.endsWith(".zip"))).toEqual(["failed.zip"]);
    expect(await json(app, `/api/error?${q("failed.zip")}`)).toMatchObject({ type: "PromptEvaluationError" });
    const session = names.find((name) => name.endsWith(".jsonl")) as string;
    expect((await get(app, `/api/logs?${q(session)}`)).statusCode).toBe(404);
    // switch to the bundle, then reload it
    expect((await post(app, "/api/switch", { path: "failed.zip" })).statusCode).toBe(200);
    expect(parsePythonJson((await post(app, "/api/reload")).body)).toMatchObject({ status: "error", bundle_id: failed.file.slice(failed.file.indexOf("/") + 1, failed.file.indexOf("_")) });
    expect(await json(app, "/api/logs?limit=1")).toMatchObject({ total: failed.log_lines });
  });
});

describe("a bundle's two session lines", () => {
  it("opens on after, finds the session on its last line, and keeps a selected line through reload", async () => {
    const small = fixtureBundle("01-small-success");
    const app = await testApp({ path: path.join(WINK_BUNDLE_FIXTURES, small.file) });
    expect(await json(app, "/api/meta")).toMatchObject({ line_number: 2, session_id: small.session_id });
    expect(await json(app, `/api/meta?session=${small.session_id}`)).toMatchObject({ line_number: 2 });
    expect(await json(app, "/api/meta?line=1")).toMatchObject({ line_number: 1 });
    const entries = await json<{ line_number: number; selected: boolean }[]>(app, "/api/entries");
    expect(entries.map((entry) => [entry.line_number, entry.selected])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(parsePythonJson((await post(app, "/api/select", { line_number: 1 })).body)).toMatchObject({ line_number: 1 });
    expect(parsePythonJson((await post(app, "/api/reload")).body)).toMatchObject({ line_number: 1, status: "success" });
    expect(parsePythonJson((await post(app, "/api/select", { session_id: small.session_id })).body)).toMatchObject({ line_number: 2 });
    // Before against after: the session's growth, through the ordinary diff route.
    const diff = await json<{ slices: { slice_type: string; status: string }[]; files: { added: number } }>(app, "/api/diff?base_line=1&target_line=2");
    expect(diff.slices.some((slice) => slice.status === "added" && slice.slice_type.endsWith(":ToolInvoked"))).toBe(true);
    // The workspace is the after line's: before has none, so every file is "added".
    expect(diff.files.added).toBe(small.filesystem_files);
    expect((await json<{ source: unknown }>(app, "/api/filesystem/meta?line=1")).source).toBeNull();
  });
});

describe("live reload", () => {
  it("lists a bundle that appears, and reads a bundle that is replaced again (polling)", async () => {
    const dir = await tempDir();
    await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "s1" })]);
    const app = await testApp({ path: dir, watch: "poll" });
    const iterations = path.join(WINK_BUNDLE_FIXTURES, "06-iterations");
    const [one, two] = (await readdir(iterations)).sort();
    if (one === undefined || two === undefined) throw new Error("fixtures");
    await cp(path.join(iterations, one), path.join(dir, "latest.zip"));
    await app.watcher?.check();
    expect((await json<{ total: number }>(app, `/api/logs?${q("latest.zip")}&limit=0`)).total).toBe(87);
    // WINK rewrites nothing in place, but a user may copy a newer run over the file.
    await cp(path.join(iterations, two), path.join(dir, "latest.zip"));
    await app.watcher?.check();
    expect((await json<{ total: number }>(app, `/api/logs?${q("latest.zip")}&limit=0`)).total).toBe(112);
    expect((await json<{ iteration: number }>(app, `/api/bundle?${q("latest.zip")}`)).iteration).toBe(2);
  });
});

describe("hostile bundles", () => {
  const sessionLine = snapshotLine({ sessionId: "s1", slices: [{ type: "m:Note", items: [{ text: "hi" }] }] });

  it("refuses unsafe bundles (listed with their error) and flags checksum mismatches, serving the rest", async () => {
    const dir = await tempDir();
    await writeSession(dir, "run.jsonl", [sessionLine]);
    await writeCraftedZip(path.join(dir, "traversal.zip"), [{ name: "debug_bundle/../../tmp/wink-canary-http.txt", data: "x" }], { manifest: true });
    await writeCraftedZip(path.join(dir, "no-manifest.zip"), [{ name: "debug_bundle/error.json", data: "{}" }]);
    await writeCraftedZip(path.join(dir, "oversized.zip"), [{ name: "debug_bundle/logs/app.jsonl", data: "", zeros: 3 * 1024 * 1024 }], { manifest: true });
    await writeCraftedZip(path.join(dir, "lying.zip"), [{ name: "debug_bundle/logs/app.jsonl", data: "", zeros: 4 * 1024 * 1024 }], { manifest: true });
    await lieAboutSize(path.join(dir, "lying.zip"), "debug_bundle/logs/app.jsonl", 100);
    await writeCraftedZip(path.join(dir, "mismatch.zip"), [{ name: "debug_bundle/metrics.json", data: '{"timing": {"duration_ms": 5}}' }], { manifest: true, checksums: { "metrics.json": "f".repeat(64) } });
    // A log cap of 2 MiB (the default is 128 MiB) keeps the oversized member small to write.
    const app = await testApp({ path: dir, bundleLimits: { maxLogBytes: 2 * 1024 * 1024 } });
    const files = await json<{ files: { path: string; status: string; error: string | null }[] }>(app, "/api/files?wait=1");
    const byName = Object.fromEntries(files.files.map((file) => [file.path, file]));
    expect(byName["traversal.zip"]?.status).toBe("error");
    expect(byName["traversal.zip"]?.error).toMatch(/\.\./);
    expect(byName["no-manifest.zip"]?.error).toContain("no debug_bundle/manifest.json");
    expect((await get(app, `/api/bundle?${q("traversal.zip")}`)).statusCode).toBe(422);
    expect((await get(app, `/api/logs?${q("no-manifest.zip")}`)).statusCode).toBe(422);
    // A member declaring more than the log limit is refused before anything is inflated.
    expect((await get(app, `/api/logs?${q("oversized.zip")}`)).statusCode).toBe(413);
    expect((await get(app, `/api/bundle?${q("oversized.zip")}`)).statusCode).toBe(200);
    // A member inflating past its declared size stops there (422), the bundle still answers.
    expect((await get(app, `/api/logs?${q("lying.zip")}`)).statusCode).toBe(422);
    expect((await get(app, `/api/bundle?${q("lying.zip")}`)).statusCode).toBe(200);
    expect(await json(app, `/api/metrics?${q("mismatch.zip")}`)).toEqual({ timing: { duration_ms: 5 } });
    const integrity = await json<{ ok: boolean; mismatched: { member: string }[] }>(app, `/api/bundle/integrity?${q("mismatch.zip")}`);
    expect(integrity.ok).toBe(false);
    expect(integrity.mismatched.map((entry) => entry.member)).toEqual(["metrics.json"]);
    expect((await json<{ integrity: { ok: boolean } }>(app, `/api/bundle?${q("mismatch.zip")}`)).integrity.ok).toBe(false);
    // The session file next to them is unaffected.
    expect((await get(app, `/api/meta?${q("run.jsonl")}`)).statusCode).toBe(200);
    const canaries = (await readdir("/tmp")).filter((name) => name.includes("wink-canary-http"));
    expect(canaries).toEqual([]);
  });

  it("a bundle without a session opens on its logs and error (meta has no line)", async () => {
    const dir = await tempDir();
    await writeCraftedZip(
      path.join(dir, "direct.zip"),
      [
        { name: "debug_bundle/logs/app.jsonl", data: '{"timestamp": "2026-11-26T05:00:00+00:00", "level": "ERROR", "logger": "x", "event": "boom", "message": "m", "context": {}}\n' },
        { name: "debug_bundle/error.json", data: '{"type": "RuntimeError", "message": "boom", "traceback": ["Traceback (most recent call last):\\n", "RuntimeError: boom\\n"]}' },
      ],
      { manifest: true, status: "error" },
    );
    const app = await testApp({ path: dir });
    expect(await json(app, "/api/meta")).toMatchObject({ status: "error", line_number: null, version: null, slices: [] });
    expect((await get(app, "/api/timeline")).statusCode).toBe(404);
    expect((await json<Page>(app, "/api/logs")).total).toBe(1);
    expect((await json<{ error: { traceback_text: string } }>(app, "/api/bundle")).error.traceback_text).toBe("Traceback (most recent call last):\nRuntimeError: boom\n");
    expect((await post(app, "/api/reload")).statusCode).toBe(200);
  });
});
