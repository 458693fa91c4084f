// Issue 30's grouping figure as a test: a generated eval whose failures are drawn from 30
// kinds, their messages varying in numbers, ids, paths, URLs and quoted strings, comes back
// from `wink-debug failures` as exactly those 30 groups, each with the runs and occurrences
// written (bundles' run errors and session files' failed calls alike).
import { createHash } from "node:crypto";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FailureReportView } from "../shared/viewer/index.js";
import type { EvalCorpus } from "./eval-corpus.test-support.js";
import { FAILURE_KINDS, writeEvalCorpus } from "./eval-corpus.test-support.js";
import { failuresMain } from "./failures.js";
import { cleanUp, tempDir } from "./server.test-support.js";

let target: string;
let corpus: EvalCorpus;

beforeAll(async () => {
  target = await tempDir("wink-eval-corpus-");
  corpus = await writeEvalCorpus(target, { runs: 160, maxSessionBytes: 40_000 });
}, 120_000);

afterAll(cleanUp);

/** Every file under `root` by its relative path, as a SHA-256 of its bytes. */
async function contents(root: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.set(path.relative(root, file), createHash("sha256").update(await readFile(file)).digest("hex"));
  }
  return files;
}

async function failures(args: string[]): Promise<FailureReportView> {
  let out = "";
  const code = await failuresMain([target, "-r", ...args], { out: (text) => void (out += text), err: () => undefined, interactive: false });
  expect(code).toBe(0);
  return JSON.parse(out) as FailureReportView;
}

describe("a generated eval of 30 kinds of failure", () => {
  it("writes every kind at least once", () => {
    expect(FAILURE_KINDS).toHaveLength(30);
    expect(new Set(FAILURE_KINDS.map((kind) => kind.signature)).size).toBe(30);
    expect([...corpus.kinds.keys()].sort()).toEqual(FAILURE_KINDS.map((kind) => kind.signature).sort());
  });

  it("comes back as exactly those groups, with the runs and occurrences written", async () => {
    const report = await failures(["--json"]);
    expect({ runs: report.runs, failed: report.failed_runs, notLoaded: report.not_loaded_runs }).toEqual({ runs: corpus.runs, failed: corpus.failedRuns, notLoaded: 0 });
    const groups = Object.fromEntries(report.groups.map((group) => [group.signature, { occurrences: group.occurrences, runs: group.runs }]));
    expect(groups).toEqual(Object.fromEntries(corpus.kinds));
  }, 120_000);

  it("is the same eval for the same seed, byte for byte", async () => {
    const other = await tempDir("wink-eval-corpus-");
    const again = await writeEvalCorpus(other, { runs: 160, maxSessionBytes: 40_000 });
    expect({ ...again, kinds: Object.fromEntries(again.kinds) }).toEqual({ ...corpus, kinds: Object.fromEntries(corpus.kinds) });
    const first = await contents(target);
    expect(first.size).toBe(160);
    expect(await contents(other)).toEqual(first);
  }, 120_000);
});
