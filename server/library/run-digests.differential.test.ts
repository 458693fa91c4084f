// The digest path (`readRunDigests`: no archive names, a bundle's transcript calls read from its
// records) against the run model the viewer opens on (`runDigest(await runOf(…))`): the same
// digest, deep-equal, for every run under fixtures/ (the real WINK runs, the hostile files and
// zips) and for runs made to take the paths a digest could get wrong (checksums that do not
// match, a member that does not inflate, a transcript.jsonl holding more rows than the logs, odd
// transcript records, sub-agents, lines that do not load).
import { readFile, readdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FIXTURES_DIR, WINK_BUNDLE_FIXTURES } from "../../fixtures/paths.js";
import { openArchive } from "../../shared/archive/reader.node.js";
import type { CraftedEntry } from "../../shared/debug-bundle/bundle.test-support.js";
import { writeCraftedZip } from "../../shared/debug-bundle/bundle.test-support.js";
import { scanEnvelope, summarizeSnapshot } from "../../shared/session/envelope-scan.js";
import { readSessionWhole, snapshotFromLineBytes } from "../../shared/session/index.js";
import { lineBody } from "../../shared/session/line-text.js";
import { notLoadedDigest, runDigest } from "../../shared/viewer/index.js";
import type { RunDigestView } from "../../shared/viewer/index.js";
import { writeEvalCorpus } from "../eval-corpus.test-support.js";
import { packageRoot } from "../package-root.js";
import { cleanUp, snapshotLine, tempDir, writeSession } from "../server.test-support.js";
import { readRunDigests } from "./run-digests.js";
import { WHOLE_READ_BYTES, runOf } from "./runs.js";
import { closeServedState, openServedState } from "./served-state.js";

afterAll(cleanUp);

const TOOL_INVOKED = "weakincentives.runtime.events._types:ToolInvoked";
const REF = "wink_debug.session:FilesystemSnapshotRef";
const BUNDLE_01 = path.join(WINK_BUNDLE_FIXTURES, "01-small-success", "c958872d-4e41-4429-9f5f-48b054b977ea_20261126_054533.zip");
const BUNDLE_02 = path.join(WINK_BUNDLE_FIXTURES, "02-failed-run", "e523fd0d-e949-41b5-8de3-f0b1f5920007_20261126_054534.zip");

/**
 * Every run of `target` (recursively) read both ways, each from a state of its own (so that
 * neither reuses what the other built), in the directory's order.
 */
async function bothWays(target: string): Promise<{ fast: RunDigestView[]; full: RunDigestView[] }> {
  const fastServed = await openServedState({ path: target, recursive: true, pickCurrent: false });
  const fullServed = await openServedState({ path: target, recursive: true, pickCurrent: false });
  try {
    const fast = await readRunDigests(fastServed.state, fastServed.state.directory.files(), { concurrency: 3 });
    const full: RunDigestView[] = [];
    for (const record of fullServed.state.directory.files()) {
      const source = { kind: record.kind === "bundle" ? ("bundle" as const) : ("session_file" as const), path: record.path, name: record.name };
      full.push(await runOf(fullServed.state, record).then(runDigest, (error: unknown) => notLoadedDigest(source, new Date(record.mtimeMs).toISOString(), error instanceof Error ? error.message : String(error))));
    }
    return { fast, full };
  } finally {
    await closeServedState(fastServed);
    await closeServedState(fullServed);
  }
}

/** The entries of a bundle (manifest included), to be written again with changes. */
async function entriesOf(zip: string, except: (name: string) => boolean = () => false): Promise<CraftedEntry[]> {
  const reader = await openArchive(zip, { deferManifest: true });
  try {
    const names: string[] = [];
    reader.forEachFile((name) => names.push(name));
    const entries: CraftedEntry[] = [];
    for (const name of names.sort()) if (!except(name)) entries.push({ name, data: await reader.readFile(name, { maxBytes: 64 * 1024 * 1024 }) });
    return entries;
  } finally {
    await reader.close();
  }
}

const text = (entry: CraftedEntry | undefined): string => (entry === undefined ? "" : typeof entry.data === "string" ? entry.data : Buffer.from(entry.data).toString("utf8"));

function replaced(entries: readonly CraftedEntry[], name: string, data: string, method?: CraftedEntry["method"]): CraftedEntry[] {
  return entries.map((entry) => (entry.name === name ? { name, data, ...(method === undefined ? {} : { method }) } : entry));
}

/** A log record as WINK writes it (its head in WINK's key order). */
function logRecord(event: string, context: unknown, timestamp = "2026-11-26T05:45:40.000000+00:00"): string {
  return JSON.stringify({ timestamp, level: "DEBUG", logger: "weakincentives.runtime.transcript", event, message: `transcript entry`, context });
}

async function writeGeneratedRuns(dir: string): Promise<void> {
  const small = await entriesOf(BUNDLE_01);
  const failed = await entriesOf(BUNDLE_02);
  const logs = "debug_bundle/logs/app.jsonl";
  const failedLogs = text(failed.find((entry) => entry.name === logs));

  // Checksums that do not match: the bundle still opens (a mismatch is reported, never fatal).
  const manifest = JSON.parse(text(small.find((entry) => entry.name === "debug_bundle/manifest.json"))) as { integrity: { checksums: Record<string, string> } };
  for (const member of Object.keys(manifest.integrity.checksums)) manifest.integrity.checksums[member] = "0".repeat(64);
  await writeCraftedZip(path.join(dir, "checksums_20261126_054533.zip"), replaced(small, "debug_bundle/manifest.json", JSON.stringify(manifest)));

  // The logs without their transcript: transcript.jsonl holds more rows and is the transcript.
  const withoutTranscript = failedLogs.split("\n").filter((line) => !line.includes('"transcript.entry"')).join("\n");
  await writeCraftedZip(path.join(dir, "file-wins_20261126_054534.zip"), replaced(failed, logs, withoutTranscript));
  // No logs at all, and no transcript at all.
  await writeCraftedZip(path.join(dir, "no-logs_20261126_054534.zip"), failed.filter((entry) => entry.name !== logs));
  await writeCraftedZip(path.join(dir, "no-transcript_20261126_054534.zip"), failed.filter((entry) => entry.name !== logs && entry.name !== "debug_bundle/transcript.jsonl"));

  // Odd transcript records after the real ones: a line that is not JSON, a context that is not
  // an object, payloads only in `raw`, failures told only by their content (serialised), a
  // Codex item without output, NaN, and a tool_use with nothing but its type.
  const odd = [
    '{"timestamp": "2026-11-26T05:45:41.000000+00:00", "level": "DEBUG", "logger": "x", "event": "transcript.entry", "message": "cut',
    logRecord("transcript.entry", "not an object"),
    logRecord("transcript.entry", { entry_type: "tool_result", source: "main", raw: JSON.stringify({ notification: { tool: "grep", arguments: { pattern: "a(" } }, result: { success: false, value: { why: "bad ✓ pattern", n: 1.5 } } }) }),
    logRecord("transcript.entry", { entry_type: "tool_result", source: "main", detail: { tool_call_id: "call_9", tool_name: "read_file", result: { success: false }, content: [{ type: "text", text: "no such file: a/b.py" }] } }),
    logRecord("transcript.entry", { entry_type: "tool_result", source: "sub", detail: { notification: { item: { type: "commandExecution", id: "item_7", status: "failed", command: "pytest -q", exitCode: 2 } } } }),
    logRecord("transcript.entry", { entry_type: "tool_result", source: "sub", detail: { notification: { item: { type: "mcpToolCall", id: "item_8", status: "failed", server: "s", tool: "t", aggregatedOutput: "line one\nboom\n" } } } }),
    logRecord("transcript.entry", { entry_type: "tool_result", source: "main", detail: { notification: { tool: "run_tests", callId: "call_10", arguments: { target: 3 } }, result: { success: false, contentItems: [{ text: "Validation error" }, { image: 1 }] } } }).replace('"target":3', '"target":NaN'),
    logRecord("transcript.entry", { entry_type: "tool_result", source: "main", detail: { result: { success: true } } }),
    logRecord("transcript.entry", { entry_type: "tool_use", detail: { type: "tool_use" } }),
    // More calls than failures, so that the run counts the transcript's tool_use rows.
    ...Array.from({ length: 12 }, (_, i) => logRecord("transcript.entry", { entry_type: "tool_use", raw: i % 2 === 0 ? "{not json" : JSON.stringify({ type: "tool_use", name: "grep", id: `u${i}` }) })),
    logRecord("other.event", { entry_type: "tool_use" }),
  ];
  await writeCraftedZip(path.join(dir, "odd-transcript_20261126_054534.zip"), replaced(failed, logs, `${failedLogs.trimEnd()}\n${odd.join("\n")}\n`));

  // Members that do not read: error.json that is not JSON, an after.jsonl that does not load,
  // and logs whose bytes were changed inside the zip (their CRC no longer matches).
  await writeCraftedZip(path.join(dir, "bad-error_20261126_054534.zip"), replaced(failed, "debug_bundle/error.json", "{not json"));
  await writeCraftedZip(path.join(dir, "bad-after_20261126_054533.zip"), replaced(small, "debug_bundle/session/after.jsonl", "not json\n"));
  const corrupt = path.join(dir, "corrupt-logs_20261126_054534.zip");
  await writeCraftedZip(corrupt, replaced(failed, logs, failedLogs, "stored"));
  const bytes = await readFile(corrupt);
  const at = bytes.indexOf(Buffer.from('"transcript.entry"'));
  expect(at).toBeGreaterThan(0);
  bytes[at + 1] = "T".charCodeAt(0);
  await writeFile(corrupt, bytes);

  // Hostile or broken bundles, which do not load: a manifest that is not JSON, a member named
  // out of the bundle, a bundle cut in half.
  await writeCraftedZip(path.join(dir, "bad-manifest_20261126_054533.zip"), replaced(small, "debug_bundle/manifest.json", "{not json"));
  await writeCraftedZip(path.join(dir, "escape_20261126_054533.zip"), [...small, { name: "debug_bundle/../../escape.txt", data: "x" }]);
  const whole = await readFile(BUNDLE_01);
  await writeFile(path.join(dir, "cut_20261126_054533.zip"), whole.subarray(0, Math.floor(whole.length / 2)));

  // Session files: a root with a sub-agent (failed calls in both, an archive named on a line),
  // a line that does not load, a file with none that loads, a JSON document that is no session.
  const call = (id: string, at: string, success: boolean, message: string) => ({ event_id: id, created_at: at, call_id: `call_${id}`, name: "write_file", params: { file_path: `src/${id}.py` }, result: { success, message } });
  await writeSession(dir, "agents.jsonl", [
    snapshotLine({ sessionId: "root", createdAt: "2026-11-22T01:00:00+00:00", childrenIds: ["child"], slices: [{ type: REF, items: [{ archive_path: "/x/turn-1.fs.zip", file_count: 1, total_bytes: 1 }] }] }),
    snapshotLine({ sessionId: "child", parentId: "root", createdAt: "2026-11-22T01:00:03+00:00", slices: [{ type: TOOL_INVOKED, items: [call("c1", "2026-11-22T01:00:02+00:00", false, "File src/c1.py must be read before overwriting.")] }] }),
    "{ not json",
    snapshotLine({ sessionId: "root", createdAt: "2026-11-22T01:00:05+00:00", childrenIds: ["child"], slices: [{ type: TOOL_INVOKED, items: [call("r1", "2026-11-22T01:00:01+00:00", true, "ok"), call("r2", "2026-11-22T01:00:04+00:00", false, "File not found: src/r2.py")] }] }),
  ]);
  await writeSession(dir, "broken.jsonl", ["{ not json", '{"version": "1"}']);
  await writeFile(path.join(dir, "truth.json"), JSON.stringify({ answer: 42 }));

  // What a digest leaves out of passing events (their summaries and arguments) and keeps of
  // the others: a passing call that carries an error, an event with one, a call that says
  // neither success nor failure; the last line without its newline.
  const told = [
    { ...call("t1", "2026-11-22T02:00:01+00:00", true, "ok, but"), error: { type: "Timeout", message: "took 31 s" } },
    { event_id: "t2", created_at: "2026-11-22T02:00:02+00:00", name: "shell", params: { command: "make   test" }, result: { message: "  no verdict  " } },
  ];
  const events = [
    { event_id: "e1", created_at: "2026-11-22T02:00:03+00:00", message: "retrying", exception: "ConnectionResetError: peer went away" },
    { event_id: "e2", created_at: "2026-11-22T02:00:04+00:00", text: "a passing event" },
  ];
  await writeFile(
    path.join(dir, "told.jsonl"),
    snapshotLine({ sessionId: "told", createdAt: "2026-11-22T02:00:05+00:00", slices: [{ type: TOOL_INVOKED, items: told }, { type: "weakincentives.runtime.events._types:PromptExecuted", items: events }] }),
  );
  // Read whole for its digest, a line longer than the scan's 1 MiB chunk (which the scan
  // summarises through its window); and a file larger than a digest reads whole (scanned,
  // then its latest line read).
  const padded = (id: string, calls: number, failing: string) => [
    snapshotLine({
      sessionId: id,
      createdAt: "2026-11-22T03:00:00+00:00",
      slices: [{ type: TOOL_INVOKED, items: [...Array.from({ length: calls }, (_, i) => call(`${id}${i}`, "2026-11-22T02:30:00+00:00", true, "x".repeat(1000))), call(`${id}f`, "2026-11-22T02:59:00+00:00", false, failing)] }],
    }),
  ];
  await writeSession(dir, "long-line.jsonl", padded("long", 1_500, "File not found: src/long.py"));
  // Files of one line, parsed once for their index and their digest (not scanned too): one
  // that needs the lossless parser (NaN, an integer past 2^53), one with a BOM and CRLF, one
  // whose envelope the scan reads but whose item the parser refuses, one that is not JSON.
  const single = (id: string) => snapshotLine({ sessionId: id, createdAt: "2026-11-22T04:00:00+00:00", tags: { agent: id }, slices: [{ type: TOOL_INVOKED, items: [call(`${id}1`, "2026-11-22T03:59:00+00:00", false, `Timed out after 30 s in ${id}`)] }] });
  await writeSession(dir, "lossless.jsonl", [single("lossless").replace('"success": false', '"success": false, "score": NaN, "tokens": 12345678901234567890')]);
  await writeFile(path.join(dir, "bom-crlf.jsonl"), `\ufeff${single("bom")}\r\n`);
  await writeSession(dir, "deep-error.jsonl", [single("deep").replace('"success": false', '"success": false, "x": tru')]);
  await writeSession(dir, "not-json.jsonl", ["{ not json"]);
  await writeSession(dir, "large.jsonl", padded("large", Math.ceil(WHOLE_READ_BYTES / 1_100) + 100, "File not found: src/large.py"));
  expect((await stat(path.join(dir, "large.jsonl"))).size).toBeGreaterThan(WHOLE_READ_BYTES);
  expect((await stat(path.join(dir, "long-line.jsonl"))).size).toBeGreaterThan(1024 * 1024);
}

function expectSame(both: { fast: RunDigestView[]; full: RunDigestView[] }): void {
  expect(both.fast.map((digest) => digest.run)).toEqual(both.full.map((digest) => digest.run));
  for (let i = 0; i < both.full.length; i++) expect(both.fast[i], both.full[i]?.run).toStrictEqual(both.full[i]);
}

describe("the digest path against the run model", () => {
  it("gives the same digest for every run under fixtures/ and the bundled examples", async () => {
    for (const target of [FIXTURES_DIR, path.join(packageRoot(), "examples")]) {
      const both = await bothWays(target);
      expectSame(both);
      if (target !== FIXTURES_DIR) continue;
      // Not vacuous: the real bundles (their transcript failures, their run error), the
      // session files, the hostile files that do not load, index.json that is no session.
      const runs = both.full.map((digest) => digest.run);
      expect(runs.filter((run) => run.startsWith("wink-bundles/") && run.endsWith(".zip"))).toHaveLength(8);
      expect(runs.some((run) => run.startsWith("security/"))).toBe(true);
      const failures = both.full.flatMap((digest) => digest.failures);
      expect(failures.filter((failure) => failure.kind === "call").length).toBeGreaterThan(10);
      expect(failures.some((failure) => failure.kind === "run_error")).toBe(true);
      expect(both.full.map((digest) => digest.outcome)).toEqual(expect.arrayContaining(["ok", "failed", "not_loaded", "not_session"]));
    }
  });

  it("gives the same digest for runs made to take every path a digest reads differently", async () => {
    const dir = await tempDir("wink-digest-paths-");
    await writeGeneratedRuns(dir);
    const both = await bothWays(dir);
    expectSame(both);
    const byRun = new Map(both.full.map((digest) => [digest.run, digest]));
    expect(byRun.size).toBe(21);
    // The cases are what they say: the transcript.jsonl's failed calls, the odd records' ones,
    // a run that still loads with its logs unreadable, the sub-agent's failure.
    const calls = (run: string) => (byRun.get(run)?.failures ?? []).filter((failure) => failure.kind === "call").map((failure) => failure.tool);
    expect(calls("file-wins_20261126_054534.zip")).toEqual(calls("no-logs_20261126_054534.zip"));
    expect(calls("file-wins_20261126_054534.zip").length).toBeGreaterThan(0);
    expect(calls("no-transcript_20261126_054534.zip")).toEqual([]);
    expect(calls("odd-transcript_20261126_054534.zip")).toEqual(expect.arrayContaining(["grep", "read_file", "codex:command", "codex:mcp:s:t", "run_tests"]));
    expect(byRun.get("odd-transcript_20261126_054534.zip")?.tool_calls).toBeGreaterThan(byRun.get("corrupt-logs_20261126_054534.zip")?.tool_calls ?? 0);
    expect(byRun.get("corrupt-logs_20261126_054534.zip")?.outcome).toBe("failed");
    expect(byRun.get("bad-after_20261126_054533.zip")?.outcome).toBe("failed");
    expect(byRun.get("checksums_20261126_054533.zip")?.outcome).not.toBe("not_loaded");
    expect(calls("agents.jsonl")).toEqual(["write_file", "write_file"]);
    expect(byRun.get("broken.jsonl")?.outcome).toBe("not_loaded");
    for (const run of ["bad-manifest_20261126_054533.zip", "escape_20261126_054533.zip", "cut_20261126_054533.zip"]) expect(byRun.get(run)?.reason, run).toMatch(/\S/);
    expect(byRun.get("truth.json")?.outcome).toBe("not_session");
    expect(byRun.get("told.jsonl")?.failures.map((failure) => failure.message)).toEqual(["took 31 s", "ConnectionResetError: peer went away"]);
    expect(calls("long-line.jsonl")).toEqual(["write_file"]);
    expect(calls("large.jsonl")).toEqual(["write_file"]);
    expect(calls("lossless.jsonl")).toEqual(["write_file"]);
    expect(calls("bom-crlf.jsonl")).toEqual(["write_file"]);
    expect(byRun.get("deep-error.jsonl")?.reason).toMatch(/^Line 1 of deep-error.jsonl does not load: Invalid JSON/);
    expect(byRun.get("not-json.jsonl")?.reason).toMatch(/^Line 1: /);
  });

  it("gives the same digest for every run of a generated eval (session files of one line, bundles)", async () => {
    const dir = await tempDir("wink-digest-eval-");
    const written = await writeEvalCorpus(dir, { runs: 120, maxSessionBytes: 60_000 });
    const both = await bothWays(dir);
    expectSame(both);
    expect(both.full).toHaveLength(120);
    expect(both.full.filter((digest) => digest.outcome === "failed")).toHaveLength(written.failedRuns);
  });
});

describe("a one-line session file read whole", () => {
  it("is parsed once, its index the scan's for every line of the fixtures", async () => {
    // The summary a parsed line is indexed with is the one the scan gives (the viewer's pages
    // use the index a digest leaves behind): every line of every session file under fixtures/ and examples/, and of a generated eval.
    const corpus = await tempDir("wink-one-line-eval-");
    await writeEvalCorpus(corpus, { runs: 40, maxSessionBytes: 60_000 });
    const files: string[] = [];
    for (const root of [FIXTURES_DIR, path.join(packageRoot(), "examples"), corpus]) files.push(...(await readdir(root, { recursive: true })).filter((file) => /\.jsonl?$/.test(file)).map((file) => path.join(root, file)));
    let compared = 0;
    for (const file of files) {
      const bytes = await readFile(file);
      let lineNumber = 0;
      for (const line of bytes.toString("latin1").split("\n")) {
        lineNumber += 1;
        const body = lineBody(Buffer.from(line, "latin1"), lineNumber);
        if (body === null) continue;
        const scanned = scanEnvelope(body, lineNumber);
        const parsed = snapshotFromLineBytes(Buffer.from(line, "latin1"), lineNumber);
        if (!scanned.ok || !parsed.ok) continue;
        expect(summarizeSnapshot(parsed.snapshot), `${file}:${lineNumber}`).toStrictEqual(scanned.summary);
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(30);
    const dir = await tempDir("wink-one-line-");
    const one = await writeSession(dir, "one.jsonl", [snapshotLine({ sessionId: "one", slices: [{ type: TOOL_INVOKED, items: [{ event_id: "e", created_at: "2026-11-22T01:00:00+00:00", name: "ls", params: {}, result: { success: true, message: "ok" } }] }] })]);
    const whole = await readSessionWhole(one, WHOLE_READ_BYTES);
    expect([...(whole?.parsed.keys() ?? [])]).toEqual([1]);
    const two = await writeSession(dir, "two.jsonl", [snapshotLine({ sessionId: "a" }), snapshotLine({ sessionId: "b" })]);
    expect((await readSessionWhole(two, WHOLE_READ_BYTES))?.parsed.size).toBe(0);
  });
});
