/**
 * Debug bundles in the page (dropped, or carried by a `wink-debug bundle` HTML file) give the
 * server's answers: the same bytes through LocalApi (jszip + the shared bundle reader) and
 * through a real `buildApp` (the archive reader + the same reader), route by route.
 */
import { mkdtemp, readFile, readdir, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WINK_BUNDLE_FIXTURES } from "../../fixtures/paths.js";
import { buildApp } from "../../server/app.js";
import type { WinkApp } from "../../server/app.js";
import { buildBundle } from "../../server/bundle.js";
import { writeCraftedZip } from "../../shared/debug-bundle/bundle.test-support.js";
import { parsePythonJson } from "../../shared/session/python-json-parse.js";
import { ApiError, at, between } from "./api.js";
import { readBundledRun } from "./bundle-data.js";
import { LocalApi } from "./local-api.js";
import type { LocalInput } from "./local-api.js";

async function inputsOf(dir: string): Promise<LocalInput[]> {
  const names = (await readdir(dir, { recursive: true })).filter((name) => name.endsWith(".zip"));
  return Promise.all(names.map(async (name) => ({ path: name.split(path.sep).join("/"), bytes: new Uint8Array(await readFile(path.join(dir, name))), lastModified: (await stat(path.join(dir, name))).mtimeMs })));
}

const servers: WinkApp[] = [];
let scratch = "";
beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), "wink-local-bundles-"));
});
afterAll(async () => {
  for (const server of servers.splice(0)) await server.app.close();
  await rm(scratch, { recursive: true, force: true });
});

async function serverFor(dir: string): Promise<WinkApp> {
  const server = await buildApp({ path: dir, recursive: true, watch: false, indexInBackground: false, logger: false });
  servers.push(server);
  return server;
}

async function served(server: WinkApp, url: string): Promise<unknown> {
  const response = await server.app.inject({ method: "GET", url, headers: { host: "127.0.0.1" } });
  const body = parsePythonJson(response.body);
  if (response.statusCode !== 200) throw new ApiError(response.statusCode, (body as { detail: string }).detail);
  return body;
}

/** A failed answer's status and detail (a member the bundle lacks: the route's 404 in both layers). */
const detailOf = (error: unknown) => (error instanceof ApiError ? { status: error.status, detail: error.detail } : error);
const q = (params: Record<string, string | number>) => `?${new URLSearchParams(Object.entries(params).map(([key, value]) => [key, String(value)])).toString()}`;

/** Every bundle call of LocalApi against its route, for one bundle. */
async function compareBundle(local: LocalApi, server: WinkApp, file: string): Promise<void> {
  const f = { file };
  expect(await local.ask.bundleSummary(f)).toEqual(await served(server, `/api/bundle${q(f)}`));
  expect(await local.ask.meta(f)).toEqual(await served(server, `/api/meta${q(f)}`));
  expect(await local.ask.meta({})).toBeDefined();
  expect(await local.ask.bundleLogs({ ...f, limit: 20, offset: 5 })).toEqual(await served(server, `/api/logs${q({ ...f, limit: 20, offset: 5 })}`));
  expect(await local.ask.bundleLogs({ ...f, level: ["info", "warning"], exclude_logger: ["asyncio"], search: "tool" })).toEqual(await served(server, `/api/logs${q({ ...f, level: "info,warning", exclude_logger: "asyncio", search: "tool" })}`));
  expect(await local.ask.bundleLogFacets(f)).toEqual(await served(server, `/api/logs/facets${q(f)}`));
  expect(await local.ask.bundleTranscript({ ...f, limit: 10, entry_type: ["tool_use", "tool_result"] })).toEqual(await served(server, `/api/transcript${q({ ...f, limit: 10, entry_type: "tool_use,tool_result" })}`));
  expect(await local.ask.bundleTranscriptFacets(f)).toEqual(await served(server, `/api/transcript/facets${q(f)}`));
  expect(await local.ask.bundleEnvironment(f)).toEqual(await served(server, `/api/environment${q(f)}`));
  expect(await local.ask.bundleRequest(f)).toEqual(await served(server, `/api/bundle/request${q(f)}`));
  expect(await local.ask.bundleManifest(f)).toEqual(await served(server, `/api/manifest${q(f)}`));
  expect(await local.ask.bundleError(f).catch(detailOf)).toEqual(await served(server, `/api/error${q(f)}`).catch(detailOf));
  expect(await local.ask.bundleMetrics(f).catch(detailOf)).toEqual(await served(server, `/api/metrics${q(f)}`).catch(detailOf));
  const members = await local.ask.bundleMembers(f);
  expect(members).toEqual(await served(server, `/api/bundle/files${q(f)}`));
  for (const member of members.filter((name) => !name.startsWith("logs/") && !name.startsWith("session/"))) {
    expect(await local.ask.bundleFile({ ...f, "*": member }), member).toEqual(await served(server, `/api/files/${member.split("/").map(encodeURIComponent).join("/")}${q(f)}`));
  }
  expect(await local.ask.bundleIntegrity(f)).toEqual(await served(server, `/api/bundle/integrity${q(f)}`));
  // What the panels ask: a record by its line, an entry by its rowid, a regex across the bundle, and the bundle's run.
  expect(await local.ask.bundleLogs({ ...f, at_line: 30, limit: 5, level: ["debug"] })).toEqual(await served(server, `/api/logs${q({ ...f, at_line: 30, limit: 5, level: "debug" })}`));
  expect(await local.ask.bundleTranscript({ ...f, at_rowid: 7, limit: 3, exclude_entry_type: ["tool_result"] })).toEqual(await served(server, `/api/transcript${q({ ...f, at_rowid: 7, limit: 3, exclude_entry_type: "tool_result" })}`));
  expect(await local.ask.bundleSearch({ q: "read_(file|dir)", file, in: "bundle", regex: "1", scope: ["logs", "transcript", "members"] })).toEqual(
    await served(server, `/api/bundles/search${q({ q: "read_(file|dir)", file, in: "bundle", regex: "1", scope: "logs,transcript,members" })}`),
  );
  expect(await local.ask.run({ file })).toEqual(await served(server, `/api/run${q(f)}`));
  // The bundle as a session file: its session line and workspace through the ordinary calls.
  const line = (await local.ask.bundleSummary(f)).session.default_line;
  if (line === null) return;
  const ref = { file, line };
  expect(await local.ask.timeline(at(ref))).toEqual(await served(server, `/api/timeline${q({ file, line })}`));
  expect(await local.ask.filesystemMeta(at(ref))).toEqual(await served(server, `/api/filesystem/meta${q({ file, line })}`));
  expect(await local.ask.browse({ ...at(ref), compare: "previous" })).toEqual(await served(server, `/api/filesystem/browse${q({ file, line })}`));
}

describe("LocalApi opens debug bundles like the server", () => {
  it("answers every bundle call alike for the iterations of one request, and compares them", async () => {
    const dir = path.join(WINK_BUNDLE_FIXTURES, "06-iterations");
    const server = await serverFor(dir);
    const local = LocalApi.open(await inputsOf(dir), "06-iterations");
    expect(local.sessionPaths).toHaveLength(3);
    const list = await local.files();
    const servedList = (await served(server, "/api/files?wait=1")) as typeof list;
    expect(list.files.map(({ modified_at: _m, ...file }) => file)).toEqual(servedList.files.map(({ modified_at: _m, ...file }) => file));
    for (const file of local.sessionPaths) await compareBundle(local, server, file);
    expect(await local.ask.bundleGroups({})).toEqual(await served(server, "/api/bundles/groups"));
    const [one, two] = (await local.ask.bundleGroups({}))[0]?.bundles.map((bundle) => bundle.path) ?? [];
    if (one === undefined || two === undefined) throw new Error("group");
    expect(await local.ask.bundleCompare({ target_file: two })).toEqual(await served(server, `/api/bundles/compare${q({ target_file: two })}`));
    expect(await local.ask.diff(between({ file: one, line: 2 }, { file: two, line: 2 }))).toEqual(await served(server, `/api/diff${q({ base_file: one, base_line: 2, target_file: two, target_line: 2 })}`));
    expect(await local.ask.fileDiff({ ...between({ file: one, line: 2 }, { file: two, line: 2 }), path: "docs/notes.md" })).toEqual(
      await served(server, `/api/diff/file${q({ base_file: one, base_line: 2, target_file: two, target_line: 2, path: "docs/notes.md" })}`),
    );
    expect(await local.ask.bundleSearch({ q: "reservation", in: "group", file: two, limit: 500 })).toEqual(await served(server, `/api/bundles/search${q({ q: "reservation", in: "group", file: two, limit: 500 })}`));
    await expect(local.ask.bundleCompare({ target_file: one })).rejects.toMatchObject({ status: 400 });
  }, 120_000);

  it("answers alike for the failed run, the odd values and the EvalLoop bundle", async () => {
    const server = await serverFor(WINK_BUNDLE_FIXTURES);
    const local = LocalApi.open(await inputsOf(WINK_BUNDLE_FIXTURES), "wink-bundles");
    // Both sides read each bundle's session first (the summary says which checksums were checked so far).
    await served(server, "/api/files?wait=1");
    for (const file of local.sessionPaths.filter((name) => /^(02|05|08)-/.test(name))) await compareBundle(local, server, file);
  }, 120_000);

  it("lists a refused bundle with its error, and answers for it as the server does", async () => {
    const dir = path.join(scratch, "hostile");
    await writeCraftedZip(path.join(scratch, "traversal.zip"), [{ name: "debug_bundle/../../tmp/wink-canary-local.txt", data: "x" }], { manifest: true });
    const bytes = new Uint8Array(await readFile(path.join(scratch, "traversal.zip")));
    const local = LocalApi.open([{ path: "traversal.zip", bytes }], dir);
    const files = await local.files();
    expect(files.files).toMatchObject([{ path: "traversal.zip", status: "error", error: expect.stringContaining("..") }]);
    await expect(local.ask.bundleSummary({ file: "traversal.zip" })).rejects.toMatchObject({ status: 422, code: "E_ARCHIVE_ENTRY" });
    expect((await local.ask.runs({})).runs).toMatchObject([{ source: { kind: "bundle", path: "traversal.zip" }, state: "error", problem: expect.stringContaining("..") }]);
    await expect(local.ask.bundleSummary({ file: "other.zip" })).rejects.toMatchObject({ status: 404, code: "WD_ERR_NOT_FOUND" });
  });
});

describe("a wink-debug bundle HTML file carrying debug bundles", () => {
  it("holds the bundles and opens them in the page", async () => {
    const web = path.join(scratch, "web");
    const { mkdir, writeFile } = await import("node:fs/promises");
    await mkdir(path.join(web, "assets"), { recursive: true });
    await writeFile(path.join(web, "index.html"), `<!doctype html><html><head><script type="module" src="./assets/app.js"></script></head><body></body></html>`);
    await writeFile(path.join(web, "assets", "app.js"), "console.log(1)");
    const output = path.join(scratch, "run.html");
    const result = await buildBundle({ source: path.join(WINK_BUNDLE_FIXTURES, "08-eval"), output, recursive: true, webDir: web });
    expect(result.files).toEqual(["5637518f-e871-405b-b3de-d37cd38e5698/7cb96be5-fd3b-4479-b08c-2148288810d1_20261126_054556.zip"]);
    const html = await readFile(output, "utf8");
    const data = /<script type="application\/json" id="wink-bundle">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? "";
    const local = readBundledRun(data);
    const [file] = local.sessionPaths;
    if (file === undefined) throw new Error("no bundle in the page");
    expect((await local.ask.bundleSummary({ file })).eval).toMatchObject({ sample_id: "calc-divide-zero-001" });
    expect((await local.ask.bundleLogs({ file, limit: 0 })).total).toBe(120);
    // One bundle given directly is a run too.
    const single = await buildBundle({ source: path.join(WINK_BUNDLE_FIXTURES, result.files[0] === undefined ? "" : `08-eval/${result.files[0]}`), output: path.join(scratch, "one.html"), webDir: web });
    expect(single.files).toEqual(["7cb96be5-fd3b-4479-b08c-2148288810d1_20261126_054556.zip"]);
  });
});
