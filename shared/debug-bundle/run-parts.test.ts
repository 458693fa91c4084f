// A bundle's run (the run model fed with what the bundle holds beyond its session) on WINK's
// real bundles: the failure first on the failed run, failed calls found in the transcript
// only where no session event records them, panels, line names and the run's time span.
import { afterAll, describe, expect, it } from "vitest";
import { buildRun, latestLines } from "../viewer/run-model.js";
import type { RunView } from "../viewer/types.js";
import type { SessionSnapshot } from "../session/snapshot-line.js";
import { FIXTURE_INDEX, fixtureBundle, fixturePath, openBundleFile } from "./bundle.test-support.js";
import type { FixtureBundle, OpenedBundle } from "./bundle.test-support.js";
import { BUNDLE_PANELS, bundleRunParts } from "./run-parts.js";

const opened: OpenedBundle[] = [];
afterAll(async () => {
  for (const bundle of opened.splice(0)) await bundle.close();
});

/** The run of a fixture bundle, built as the server and the in-browser API build it. */
async function runOf(fixture: FixtureBundle, options: { withoutTranscript?: boolean } = {}): Promise<RunView> {
  const handle = await openBundleFile(fixturePath(fixture));
  opened.push(handle);
  const { bundle } = handle;
  const session = await bundle.session();
  const lines = session.entries.map((entry) => ({ lineNumber: entry.lineNumber, summary: entry }));
  const latest = new Map<string, SessionSnapshot>();
  for (const [id, line] of latestLines(lines)) latest.set(id, session.snapshot(line) as SessionSnapshot);
  const parts = await bundleRunParts(bundle);
  // Without its transcript a failed run records no call at all, failed or not.
  const extra = options.withoutTranscript === true ? { extraFailures: [], recordedToolCalls: 0 } : {};
  return buildRun({ ...parts, ...extra, source: { kind: "bundle", path: fixture.file, name: bundle.name }, modifiedAt: fixture.created_at, lines, lineErrors: session.errors, latest });
}

describe("the failed run (02)", () => {
  it("puts error.json first and lists the calls that failed, from the transcript", async () => {
    const fixture = fixtureBundle("02-failed-run");
    const run = await runOf(fixture);
    expect(run.source.kind).toBe("bundle");
    expect(run.error?.type).toBe(fixture.error?.type);
    expect(run.error?.message).toBe(fixture.error?.message);
    expect(run.error?.traceback).toMatch(/^Traceback \(most recent call last\):\n/);
    expect(run.error?.traceback).toContain("raise PromptEvaluationError(");
    // No after.jsonl: no ToolInvoked event; every failure comes from a tool_result of the transcript.
    expect(run.failures.map((failure) => [failure.title, failure.argument?.value ?? null])).toEqual([
      ["read_file", "calc-service/src/calc/parsers.py"],
      ["write_file", "calc-service/src/calc/parser.py"],
      ["run_tests", null],
      ["write_file", "../../etc/hosts"],
      ["delete_file", "calc-service/src/calc/parser.py"],
      ["codex:command", "python -m pytest -q"],
    ]);
    expect(run.failures.every((failure) => failure.event_index === null && failure.transcript_rowid !== null)).toBe(true);
    expect(run.failures[0]?.message).toBe("File not found: calc-service/src/calc/parsers.py");
    expect(run.failures[2]?.message).toBe("Validation error: target: expected str");
    expect(run.failures[5]?.message).toMatch(/^exit code 1: .*1 failed/);
    expect(run.stats).toMatchObject({ outcome: "failed", failed_calls: 6, tool_calls: fixture.transcript_types.tool_use });
    expect(run.sessions[0]?.stats.failed_calls).toBe(6);
    // The run spans the manifest's start and end, not only the one event of before.jsonl.
    expect(run.stats.duration_ms).toBeGreaterThan(100);
    expect(run.sessions[0]?.snapshots.map((snapshot) => snapshot.label)).toEqual(["before the run"]);
    expect(run.panels.map((panel) => panel.id)).toEqual(BUNDLE_PANELS.map((panel) => panel.id).filter((id) => id !== "eval"));
  });
});

describe("a run that failed with no failed call (02 without its transcript)", () => {
  it("marks its root session failed too: the session's badge does not say ok under the run's error", async () => {
    const run = await runOf(fixtureBundle("02-failed-run"), { withoutTranscript: true });
    expect(run.error?.type).toBe("PromptEvaluationError");
    expect(run.failures).toEqual([]);
    expect(run.stats.outcome).toBe("failed");
    expect(run.sessions[0]?.stats).toMatchObject({ outcome: "failed", failed_calls: 0, errors: 0 });
  });
});

describe("successful runs", () => {
  it("does not list a failure twice when a ToolInvoked event records it (03)", async () => {
    const fixture = fixtureBundle("03-long-run");
    const run = await runOf(fixture);
    expect(run.error).toBeNull();
    expect(run.failures).toHaveLength(fixture.tool_invoked_failed ?? -1);
    expect(run.failures.every((failure) => failure.event_index !== null && failure.transcript_rowid === null)).toBe(true);
    expect(run.sessions[0]?.snapshots.map((snapshot) => snapshot.label)).toEqual(["before the run", "after the run"]);
  });

  it("adds a failed call that produced no ToolInvoked (05: a validation error)", async () => {
    const fixture = fixtureBundle("05-odd-values");
    const run = await runOf(fixture);
    const extra = run.failures.filter((failure) => failure.transcript_rowid !== null);
    expect(extra.map((failure) => [failure.title, failure.argument])).toEqual([["search", { name: "path", value: "calc-service" }]]);
    expect(extra[0]?.message).toContain("Invalid regex pattern");
    expect(run.stats.outcome).toBe("failed");
  });

  it("offers the eval panel only with eval.json (08)", async () => {
    const run = await runOf(fixtureBundle("08-eval"));
    expect(run.panels.map((panel) => panel.id)).toContain("eval");
    expect(run.failures).toEqual([]);
    expect(run.stats.outcome).toBe("ok");
  });

  it.each(FIXTURE_INDEX.map((fixture) => [fixture.file, fixture] as const))("counts at least WINK's tool calls (%s)", async (_file, fixture) => {
    const run = await runOf(fixture);
    expect(run.stats.tool_calls).toBeGreaterThanOrEqual(fixture.wink_tool_calls);
    expect(run.stats.outcome).toBe(fixture.status === "error" || (fixture.tool_invoked_failed ?? 0) > 0 || run.failures.length > 0 ? "failed" : "ok");
  });
});
