// The bundle reader against WINK's real bundles (fixtures/wink-bundles, counts from the
// index.json WINK's own reader produced) and against crafted hostile bundles.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArchiveError } from "../errors.js";
import { isJsonObject } from "../session/json-value.js";
import { BUNDLE_MEMBERS } from "./layout.js";
import { LogIndex } from "./logs.js";
import { TranscriptIndex } from "./transcript.js";
import { FIXTURE_INDEX, fixtureBundle, fixturePath, lieAboutSize, openBundleFile, writeCraftedZip } from "./bundle.test-support.js";
import type { OpenedBundle } from "./bundle.test-support.js";

const opened: OpenedBundle[] = [];
async function open(file: string, limits = {}, bundleLimits = {}): Promise<OpenedBundle> {
  const bundle = await openBundleFile(file, limits, bundleLimits);
  opened.push(bundle);
  return bundle;
}

let scratch = "";
beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), "wink-bundle-test-"));
});
afterAll(async () => {
  for (const bundle of opened.splice(0)) await bundle.close();
  await rm(scratch, { recursive: true, force: true });
});

describe.each(FIXTURE_INDEX.map((fixture) => [`${fixture.scenario} ${fixture.iteration ?? ""}`.trim(), fixture] as const))("fixture bundle %s", (_name, fixture) => {
  it("has the manifest, members and workspace index.json records", async () => {
    const { bundle } = await open(fixturePath(fixture));
    expect(bundle.manifest.status).toBe(fixture.status);
    expect(bundle.manifest.trigger).toBe(fixture.trigger);
    expect(bundle.manifest.requestId).toBe(fixture.request_id);
    expect(bundle.manifest.sessionId).toBe(fixture.session_id);
    expect(bundle.manifest.createdAt).toBe(fixture.created_at);
    expect(bundle.manifest.filesystemTruncated).toBe(fixture.filesystem_truncated);
    expect(bundle.manifest.files).toHaveLength(fixture.manifest_files);
    expect(bundle.members()).toHaveLength(fixture.zip_entries);
    expect((await bundle.workspace()?.list())?.length ?? 0).toBe(fixture.filesystem_files);
    for (const [member, present] of Object.entries(fixture.has)) expect(bundle.has(member), member).toBe(present);
    expect(bundle.warnings).toEqual([]);
  });

  it("has the logs, tool calls and transcript WINK counted", async () => {
    const { bundle } = await open(fixturePath(fixture));
    const logs = await bundle.logs();
    expect(logs?.count).toBe(fixture.log_lines);
    expect(logs?.levelCounts()).toEqual(fixture.log_levels);
    expect(logs?.invalidCount).toBe(0);
    expect(logs?.indexesOfEvent("bridge.tool_call.start")).toHaveLength(fixture.wink_tool_calls);
    const transcript = await bundle.transcript();
    // Ours comes from the logs, where no entry is lost; WINK's from transcript.jsonl.
    expect(transcript.count).toBe(fixture.transcript_events_in_logs);
    expect(transcript.origin).toBe("logs/app.jsonl");
    expect(transcript.counts.transcriptJsonl).toBe(fixture.transcript_jsonl_lines);
    const winkView = TranscriptIndex.build(null, await bundle.read(BUNDLE_MEMBERS.transcript));
    expect(winkView.count).toBe(fixture.transcript_entries);
    expect(Object.fromEntries(winkView.facets().entry_types.map((facet) => [facet.name, facet.count]))).toEqual(fixture.transcript_types);
  });

  it("has the session, error and run identity WINK recorded", async () => {
    const { bundle } = await open(fixturePath(fixture));
    const session = await bundle.session();
    expect(session.errors).toEqual([]);
    const after = session.snapshot(2);
    expect(after !== undefined).toBe(fixture.has["session/after.jsonl"]);
    expect(session.defaultLine).toBe(fixture.has["session/after.jsonl"] ? 2 : 1);
    if (after !== undefined) {
      expect(after.slices.reduce((sum, slice) => sum + slice.items.length, 0)).toBe(fixture.wink_query_counts.session_slices);
      const tools = after.slices.find((slice) => slice.displayName === "ToolInvoked");
      expect(tools?.items.length ?? 0).toBe(fixture.tool_invoked_events);
      expect(tools?.items.filter((item) => isJsonObject(item.result) && item.result.success === false).length ?? 0).toBe(fixture.tool_invoked_failed);
    }
    const summary = await bundle.summary();
    expect(summary.error === null ? null : { type: summary.error.type, message: summary.error.message }).toEqual(fixture.error);
    expect(summary.attempt).toBe(fixture.attempt);
    expect(summary.trace_id).toBe(fixture.trace_id);
    expect(summary.iteration).toBe(fixture.iteration);
    expect(summary.status).toBe(fixture.status);
    expect((await bundle.verifyIntegrity()).ok).toBe(fixture.integrity_ok);
  });
});

describe("reading only what is shown", () => {
  it("opens with the central directory and manifest.json, then reads one member per view", async () => {
    const { bundle, reads } = await open(fixturePath(fixtureBundle("03-long-run")));
    expect(reads).toEqual(["debug_bundle/manifest.json"]);
    (await bundle.logs())?.page({ limit: 50 });
    expect(reads).toEqual(["debug_bundle/manifest.json", "debug_bundle/logs/app.jsonl"]);
    await bundle.summary();
    expect(new Set(reads.slice(2))).toEqual(new Set(["debug_bundle/run_context.json", "debug_bundle/request/input.json", "debug_bundle/metrics.json"]));
    expect(reads.some((name) => name.includes("session/") || name.includes("filesystem/"))).toBe(false);
  });

  it("checks a member's checksum when it is read, and every checksum on request", async () => {
    const { bundle } = await open(fixturePath(fixtureBundle("01-small-success")));
    expect(bundle.integrity()).toMatchObject({ verified: 0, complete: false, ok: null });
    await bundle.read(BUNDLE_MEMBERS.metrics);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(bundle.checksumOk(BUNDLE_MEMBERS.metrics)).toBe(true);
    const full = await bundle.verifyIntegrity();
    expect(full).toMatchObject({ listed: 32, verified: 32, complete: true, ok: true, mismatched: [], missing: [], unlisted: [] });
  });
});

describe("what WINK really writes", () => {
  it("a failed run: no after.jsonl, the before session by default, the error with its traceback", async () => {
    const { bundle } = await open(fixturePath(fixtureBundle("02-failed-run")));
    const summary = await bundle.summary();
    expect(summary.session.default_line).toBe(1);
    expect(summary.session.lines[1]).toMatchObject({ label: "after", present: false });
    expect(summary.session.lines[1]?.error).toContain("failed run");
    expect(summary.error?.traceback).toHaveLength(17);
    expect(summary.error?.traceback_text).toContain("Traceback (most recent call last):");
    expect(summary.error?.traceback_text).toContain("PromptEvaluationError");
    expect(summary.metrics).toBeNull();
    expect(bundle.workspace()).toBeNull();
    expect((await bundle.session()).entries.map((entry) => entry.lineNumber)).toEqual([1]);
  });

  it("bare NaN and Infinity, and integers beyond 2^53 kept exact, in the session", async () => {
    const { bundle } = await open(fixturePath(fixtureBundle("05-odd-values")));
    const after = (await bundle.session()).snapshot(2);
    const odd = after?.slices.find((slice) => slice.displayName === "OddValues")?.items[0];
    const numbers = JSON.stringify(odd, (_key, value: unknown) => (typeof value === "bigint" ? `big:${value}` : typeof value === "number" && !Number.isFinite(value) ? `float:${value}` : value));
    expect(numbers).toContain("big:9007199254740993");
    expect(numbers).toContain("big:-1180591620717411303424");
    expect(numbers).toContain("float:NaN");
    expect(numbers).toContain("float:-Infinity");
  });

  it("transcript entries holding U+2028 come from the logs (WINK's transcript.jsonl lost 7 of 19)", async () => {
    const { bundle } = await open(fixturePath(fixtureBundle("05-odd-values")));
    const transcript = await bundle.transcript();
    expect(transcript.counts).toEqual({ logs: 19, transcriptJsonl: 12 });
    const page = transcript.page({});
    expect(page.entries.some((entry) => `${entry.content}${entry.parsed ?? ""}`.includes("\u2028"))).toBe(true);
  });

  it("top-level names whose leading dot WINK stripped are noted", async () => {
    const { bundle } = await open(fixturePath(fixtureBundle("06-iterations")));
    const files = (await bundle.workspace()?.list())?.map((file) => file.path) ?? [];
    expect(files).toContain("gitignore");
    expect(files).toContain("github/workflows/ci.yml");
    expect(bundle.workspaceNotes().join(" ")).toMatch(/gitignore was probably \.gitignore.*github was probably \.github|github was probably \.github.*gitignore was probably \.gitignore/);
    // 01 keeps its nested dotfile and needs no note.
    const { bundle: small } = await open(fixturePath(fixtureBundle("01-small-success")));
    expect((await small.workspace()?.list())?.map((file) => file.path)).toContain("calc-service/.gitignore");
    expect(small.workspaceNotes()).toEqual([]);
  });

  it("an EvalLoop bundle: eval, prompt overrides, git environment and no run context", async () => {
    const { bundle } = await open(fixturePath(fixtureBundle("08-eval")));
    const summary = await bundle.summary();
    expect(summary.eval).toMatchObject({ sample_id: "calc-divide-zero-001", score: { passed: true } });
    expect(summary.run_id).toBeNull();
    expect(summary.group_id).toBe("folder:08-eval/5637518f-e871-405b-b3de-d37cd38e5698");
    const environment = await bundle.environment();
    expect(environment.git).toMatchObject({ branch: "main", is_dirty: true, commit_short: "1aca2aa1" });
    expect(environment.git_diff).toContain("new file");
    expect(environment.container).toMatchObject({ runtime: "docker", is_containerized: true });
    expect(Object.keys(environment.env_vars)).toEqual([...Object.keys(environment.env_vars)].sort());
    expect(await bundle.json(BUNDLE_MEMBERS.promptOverrides)).toEqual({ overrides: { "style-guide": "full" }, history_count: 1 });
  });
});

describe("logs queries (WINK's filters, plus time)", () => {
  it("filters by level (any case), logger and event, with include and exclude, and pages", async () => {
    const logs = await (await open(fixturePath(fixtureBundle("03-long-run")))).bundle.logs();
    if (logs === null) throw new Error("no logs");
    expect(logs.page({ levels: ["warning"], limit: 10 })).toMatchObject({ total: 652, offset: 0, limit: 10 });
    expect(logs.page({ levels: ["warning"], limit: 10 }).entries.every((entry) => entry.level === "WARNING")).toBe(true);
    const facets = logs.facets();
    const top = facets.events[0];
    if (top === undefined) throw new Error("no events");
    expect(facets.events.every((facet, i) => i === 0 || (facets.events[i - 1] as { count: number }).count >= facet.count)).toBe(true);
    expect(facets.levels.reduce((sum, facet) => sum + facet.count, 0)).toBe(5363);
    expect(logs.page({ events: [top.name] }).total).toBe(top.count);
    expect(logs.page({ excludeEvents: [top.name] }).total).toBe(5363 - top.count);
    const page2 = logs.page({ offset: 50, limit: 50 });
    expect(page2.entries[0]?.line_number).toBe(51);
  });

  it("searches message and context case-insensitively, also for quoted text", async () => {
    const logs = await (await open(fixturePath(fixtureBundle("01-small-success")))).bundle.logs();
    if (logs === null) throw new Error("no logs");
    const hits = logs.page({ search: "ZERODIVISIONERROR" });
    expect(hits.total).toBeGreaterThan(0);
    for (const entry of hits.entries) expect(`${entry.message}${JSON.stringify(entry.context)}`.toLowerCase()).toContain("zerodivisionerror");
    const quoted = logs.page({ search: '"path": "calc-service' });
    expect(quoted.total).toBeGreaterThan(0);
  });

  it("jumps to a time and keeps to a window", async () => {
    const logs = await (await open(fixturePath(fixtureBundle("03-long-run")))).bundle.logs();
    if (logs === null) throw new Error("no logs");
    const all = logs.page({});
    const middle = all.entries[2000];
    if (middle === undefined) throw new Error("short log");
    const at = Date.parse(middle.timestamp);
    const jumped = logs.page({ at: middle.timestamp, limit: 5 });
    expect(Date.parse(jumped.entries[0]?.timestamp ?? "")).toBeGreaterThanOrEqual(at);
    expect(jumped.offset).toBeLessThanOrEqual(2000);
    expect(all.entries.slice(0, jumped.offset).every((entry) => Date.parse(entry.timestamp) < at)).toBe(true);
    const window = logs.page({ since: middle.timestamp, until: new Date(at + 1000).toISOString() });
    expect(window.total).toBeGreaterThan(0);
    expect(window.entries.every((entry) => Date.parse(entry.timestamp) >= at && Date.parse(entry.timestamp) <= at + 1000)).toBe(true);
    expect(() => logs.page({ at: "yesterday" })).toThrow(/at must be an ISO-8601 time/);
  });
});

describe("the log index on records written otherwise", () => {
  it("reads records in another key order, with escapes or non-ASCII in their head, and U+2028 inside strings", () => {
    const lines = [
      '{"timestamp": "2026-11-26T05:00:00+00:00", "level": "info", "logger": "app", "event": "a", "message": "plain", "context": {}}',
      '{"level": "WARNING", "timestamp": "2026-11-26T05:00:01+00:00", "logger": "app", "event": "b", "message": "reordered", "context": {}}',
      '{"timestamp": "2026-11-26T05:00:02+00:00", "level": "ERROR", "logger": "app \\"quoted\\"", "event": "c", "message": "escaped logger", "context": {}}',
      '{"timestamp": "2026-11-26T05:00:03+00:00", "level": "INFO", "logger": "app", "event": "déjà", "message": "line separator", "context": {"n": NaN}}',
    ];
    const logs = new LogIndex(new TextEncoder().encode(`${lines.join("\n")}\n`));
    expect(logs.count).toBe(4);
    expect(logs.levelCounts()).toEqual({ INFO: 2, WARNING: 1, ERROR: 1 });
    expect(logs.facets().loggers).toEqual([
      { name: "app", count: 3 },
      { name: 'app "quoted"', count: 1 },
    ]);
    expect(logs.page({ loggers: ['app "quoted"'] }).entries.map((entry) => entry.message)).toEqual(["escaped logger"]);
    expect(logs.page({ events: ["déjà"] }).entries[0]?.message).toBe("line separator");
    expect(logs.page({ search: "SEPARATOR" }).total).toBe(1);
    expect(logs.page({ levels: ["info"], since: "2026-11-26T05:00:01+00:00" }).entries.map((entry) => entry.event)).toEqual(["déjà"]);
    expect(logs.page({ at: "2026-11-26T05:00:02+00:00", limit: 1 })).toMatchObject({ offset: 2, entries: [{ event: "c" }] });
  });
});

describe("the transcript", () => {
  it("pairs each tool result with its tool use and extracts tool names, ids and content", async () => {
    const transcript = await (await open(fixturePath(fixtureBundle("01-small-success")))).bundle.transcript();
    const entries = transcript.page({}).entries;
    const uses = entries.filter((entry) => entry.entry_type === "tool_use");
    expect(uses).toHaveLength(13);
    for (const use of uses) {
      expect(use.tool_use_id).not.toBe("");
      expect(use.tool_name).not.toBe("");
      const result = entries.find((entry) => entry.rowid === use.paired_rowid);
      expect(result?.entry_type).toBe("tool_result");
      expect(result?.tool_use_id).toBe(use.tool_use_id);
      expect(result?.paired_rowid).toBe(use.rowid);
    }
    const user = entries.find((entry) => entry.entry_type === "user_message");
    expect(user?.content).toContain("ZeroDivisionError");
    expect(user?.content_html).toContain("<h2>");
    expect(transcript.page({ entryTypes: ["tool_use"], excludeSources: ["other"] }).total).toBe(13);
    expect(transcript.page({ search: "list_dir" }).total).toBeGreaterThan(0);
  });
});

describe("hostile and broken bundles", () => {
  const file = (name: string) => path.join(scratch, name);

  it("shows a checksum mismatch instead of hiding it", async () => {
    await writeCraftedZip(file("mismatch.zip"), [{ name: "debug_bundle/error.json", data: '{"type": "E", "message": "m", "traceback": []}' }, { name: "debug_bundle/metrics.json", data: "{}" }], {
      manifest: true,
      status: "error",
      checksums: { "error.json": "0".repeat(64) },
    });
    const { bundle } = await open(file("mismatch.zip"));
    expect((await bundle.error())?.type).toBe("E");
    const integrity = await bundle.verifyIntegrity();
    expect(integrity.ok).toBe(false);
    expect(integrity.mismatched).toEqual([{ member: "error.json", expected: "0".repeat(64), actual: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    expect(bundle.checksumOk("error.json")).toBe(false);
    expect(bundle.checksumOk("metrics.json")).toBe(true);
  });

  it("refuses a zip without debug_bundle/manifest.json, naming it", async () => {
    await writeCraftedZip(file("no-manifest.zip"), [{ name: "debug_bundle/logs/app.jsonl", data: "" }]);
    await expect(open(file("no-manifest.zip"))).rejects.toMatchObject({ code: "E_ARCHIVE_MANIFEST", message: expect.stringContaining("no-manifest.zip") });
  });

  it("refuses traversal, absolute and duplicate names before reading anything", async () => {
    for (const [name, entries] of [
      ["dotdot.zip", [{ name: "debug_bundle/../../tmp/wink-canary-bundle.txt", data: "x" }]],
      ["absolute.zip", [{ name: "/tmp/wink-canary-bundle-abs.txt", data: "x" }]],
      ["duplicate.zip", [{ name: "debug_bundle/error.json", data: "{}" }, { name: "debug_bundle/error.json", data: "[]" }]],
    ] as const) {
      await writeCraftedZip(file(name), entries, { manifest: true });
      const refused = await open(file(name)).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused, name).toBeInstanceOf(ArchiveError);
      expect((refused as ArchiveError).code, name).toBe("E_ARCHIVE_ENTRY");
    }
  });

  it("refuses a bundle with more entries than the limit", async () => {
    const entries = Array.from({ length: 1001 }, (_, i) => ({ name: `debug_bundle/filesystem/f${i}.txt`, data: "" }));
    await writeCraftedZip(file("many.zip"), entries, { manifest: true });
    await expect(open(file("many.zip"), { maxEntries: 1000 })).rejects.toMatchObject({ code: "E_ARCHIVE_LIMIT" });
    const { bundle } = await open(file("many.zip"));
    expect((await bundle.workspace()?.list())?.length).toBe(1001);
  });

  it("refuses to parse a member larger than its limit, and the rest of the bundle still opens", async () => {
    await writeCraftedZip(file("bomb.zip"), [{ name: "debug_bundle/logs/app.jsonl", data: "", zeros: 3 * 1024 * 1024 }, { name: "debug_bundle/metrics.json", data: '{"x": 1}' }], { manifest: true });
    // A 2 MiB log cap (default 128 MiB) keeps the member small to write.
    const { bundle } = await open(file("bomb.zip"), {}, { maxLogBytes: 2 * 1024 * 1024 });
    await expect(bundle.logs()).rejects.toMatchObject({ code: "E_ARCHIVE_LIMIT" });
    expect(await bundle.json(BUNDLE_MEMBERS.metrics)).toEqual({ x: 1 });
  });

  it("stops a member that inflates past its declared size (a lying-size bomb), and the rest still opens", async () => {
    await writeCraftedZip(file("lying.zip"), [{ name: "debug_bundle/logs/app.jsonl", data: "", zeros: 8 * 1024 * 1024 }, { name: "debug_bundle/metrics.json", data: "{}" }], { manifest: true });
    await lieAboutSize(file("lying.zip"), "debug_bundle/logs/app.jsonl", 1024);
    const { bundle } = await open(file("lying.zip"));
    await expect(bundle.logs()).rejects.toMatchObject({ code: "E_ARCHIVE_CHECKSUM", message: expect.stringContaining("inflates to more than its declared 1024 bytes") });
    expect(await bundle.json(BUNDLE_MEMBERS.metrics)).toEqual({});
  });

  it("flags unsafe paths in the manifest and entries outside debug_bundle/, and never pollutes prototypes", async () => {
    // Written as text: an object literal's __proto__ would set a prototype, not a key.
    const manifest = `{"format_version": "1.0.0", "bundle_id": "b", "created_at": "2026-11-26T05:00:00+00:00", "request": {"request_id": "r", "session_id": null, "status": "success"},
      "files": ["../../etc/passwd", "metrics.json"],
      "integrity": {"algorithm": "sha256", "checksums": {"/etc/shadow": "${"a".repeat(64)}", "metrics.json": "not-hex", "__proto__": {"polluted": true}}},
      "__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}`;
    await writeCraftedZip(file("unsafe-manifest.zip"), [
      { name: "debug_bundle/manifest.json", data: manifest },
      { name: "debug_bundle/metrics.json", data: "{}" },
      { name: "elsewhere.txt", data: "x" },
    ]);
    const { bundle } = await open(file("unsafe-manifest.zip"));
    const warnings = bundle.warnings.join("\n");
    expect(warnings).toContain("files[0] names an unsafe path");
    expect(warnings).toContain("/etc/shadow");
    expect(warnings).toContain("checksum of metrics.json is not a hex digest");
    expect(warnings).toContain("Ignored 1 entry outside debug_bundle/: elsewhere.txt");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("a bundle without a session still opens; a second session line and bad log lines are reported, not dropped", async () => {
    await writeCraftedZip(
      file("odd.zip"),
      [
        { name: "debug_bundle/logs/app.jsonl", data: '{"timestamp": "2026-11-26T05:00:00+00:00", "level": "INFO", "logger": "a", "event": "e", "message": "m", "context": {}}\nnot json\n\n[1, 2]\n' },
        { name: "debug_bundle/request/input.json", data: "{}" },
      ],
      { manifest: true },
    );
    const { bundle } = await open(file("odd.zip"));
    const session = await bundle.session();
    expect(session.entries).toEqual([]);
    expect(session.defaultLine).toBeNull();
    const logs = await bundle.logs();
    expect(logs?.count).toBe(3);
    expect(logs?.invalidCount).toBe(2);
    const entries = logs?.page({}).entries ?? [];
    expect(entries.map((entry) => entry.line_number)).toEqual([1, 2, 4]);
    expect(entries[1]?.error).toContain("Line 2 is not a JSON object");
    expect(entries[1]?.message).toBe("not json");

    const line = '{"children_ids": [], "created_at": "2026-11-26T05:00:00+00:00", "parent_id": null, "slices": [], "tags": {"session_id": "s"}, "version": "1"}';
    await writeCraftedZip(file("two-lines.zip"), [{ name: "debug_bundle/session/after.jsonl", data: `${line}\n${line}\n` }], { manifest: true });
    const { bundle: twoLines } = await open(file("two-lines.zip"));
    expect((await twoLines.session()).entries.map((entry) => entry.lineNumber)).toEqual([2]);
    expect(twoLines.warnings.join(" ")).toContain("session/after.jsonl holds 2 lines");
  });
});
