/**
 * The web app's two data layers answer the same route table. Every entry of `VIEWER_ROUTES`
 * is covered here: with the `Api` calls that use it, each asked of `HttpApi` (against a real
 * server on loopback: the request must land on that entry) and of `LocalApi` over the same
 * files (its answer must validate against the entry's response schema), or as server-only
 * with the reason the app never asks it. A route the views ask that `COVERAGE` does not list
 * is asked with a request built from its request schema (`derivedCalls`: each parameter by
 * its name from the fixture), so a new route needs no line here and is still asked of both
 * layers; one whose required parameter the fixture has no value for fails until its calls
 * are listed. A route the views do not ask (`UNASKED_ROUTES`) must be listed with why (the
 * type check fails otherwise); a route the views ask by name (`ASKED_ROUTES`) is answered by
 * both layers' `ask` or does not compile.
 */
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, stat } from "node:fs/promises";
import { resolveObjectURL } from "node:buffer";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Window } from "happy-dom";
import type { TSchema } from "typebox";
import { Value } from "typebox/value";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ROOT_SESSION_ID } from "../../examples/agent-run.js";
import { WINK_BUNDLE_FIXTURES } from "../../fixtures/paths.js";
import { buildApp } from "../../server/app.js";
import type { WinkApp } from "../../server/app.js";
import { VIEWER_ROUTES } from "../../shared/viewer/routes/index.js";
import type { RouteEntry, ViewerRouteName } from "../../shared/viewer/routes/index.js";
import type { Api, SnapshotRef } from "./api.js";
import { at as selector, between } from "./api.js";
import type { BundleMemberKind } from "./bundle-api.js";
import { BUNDLE_MEMBER_ROUTES } from "./bundle-api.js";
import { HttpApi } from "./http-api.js";
import { LocalApi } from "./local-api.js";
import { ASKED_ROUTES } from "./routes.js";
import type { AskedRouteName, UNASKED_ROUTES } from "./routes.js";
import type { LocalInput } from "./local-api.js";

/** What the calls ask about, found in the fixture directory before the test. */
interface Fixture {
  readonly run: string;
  readonly base: SnapshotRef;
  readonly ref: SnapshotRef;
  readonly sliceType: string;
  readonly filePath: string;
  readonly changedPath: string;
  readonly changedSlice: string;
  readonly signature: string;
  readonly toolCall: { readonly callId: string; readonly path: string };
  readonly bundle: string;
  readonly otherBundle: string;
  readonly member: string;
  /** A bundle that has each JSON member (WINK's 404 otherwise, null in the app). */
  readonly withMember: Readonly<Record<BundleMemberKind, string>>;
}

type Call = (api: Api, at: Fixture) => Promise<unknown>;

type Coverage =
  /** The app's calls that ask this route; `localRefuses`: why LocalApi answers them with a 404 instead. */
  | { readonly calls: readonly Call[]; readonly localRefuses?: string }
  /** Not JSON: the `Api` method that uses it (a download, the event stream). */
  | { readonly method: "download" | "subscribe" }
  /** The app never asks it (it stays for WINK's viewer, scripts and links). */
  | { readonly serverOnly: string };

const member = (kind: BundleMemberKind) => ({ calls: [(api: Api, at: Fixture) => api.ask[BUNDLE_MEMBER_ROUTES[kind]]({ file: at.withMember[kind] })] });

const COVERAGE = {
  meta: { calls: [(api, at) => api.ask.meta(selector(at.ref)), (api, at) => api.ask.meta({ file: at.bundle })] },
  entries: { serverOnly: "WINK's viewer API: the app reads a file's lines from /api/files and /api/run" },
  slicePage: { calls: [(api, at) => api.ask.slicePage({ slice_type: at.sliceType, ...selector(at.ref), offset: 0, limit: 5 })] },
  raw: { serverOnly: "WINK's viewer API: the line as written; the app reads slices through /api/slices" },
  snapshots: { serverOnly: "WINK's viewer API: the app lists /api/files and /api/runs" },
  reload: { serverOnly: "WINK's viewer API: moves the server's current snapshot; the app navigates by URL" },
  select: { serverOnly: "WINK's viewer API: moves the server's current snapshot; the app navigates by URL" },
  switch: { serverOnly: "WINK's viewer API: moves the server's current snapshot; the app navigates by URL" },
  files: { calls: [(api) => api.files()] },
  runs: { calls: [(api) => api.ask.runs({}), (api) => api.ask.runs({ offset: 0, limit: 1, q: "5f0c" })] },
  runSearch: { calls: [(api, at) => api.ask.runSearch({ file: at.run, q: "def", limit: 10 })] },
  runSession: { calls: [(api, at) => api.ask.runSession({ file: at.run, session: ROOT_SESSION_ID, offset: 0, limit: 10 })] },
  failures: { calls: [(api) => api.ask.failures({})] },
  evalRuns: { calls: [(api) => api.ask.evalRuns({}), (api, at) => api.ask.evalRuns({ group: at.signature, outcome: "failed", since: "2020-01-01", q: "", offset: 0, limit: 5 })] },
  failureOccurrences: { calls: [(api, at) => api.ask.failureOccurrences({ signature: at.signature })] },
  timeline: { calls: [(api, at) => api.ask.timeline(selector(at.ref))] },
  toolCallDiff: {
    calls: [(api, at) => api.ask.toolCallDiff({ ...selector(at.ref), call_id: at.toolCall.callId, path: at.toolCall.path })],
    localRefuses: "files opened in the page come without the undo store, so their timelines list no tool-call changes to ask about",
  },
  filesystemMeta: { calls: [(api, at) => api.ask.filesystemMeta(selector(at.ref))] },
  fileTree: { serverOnly: "the whole tree without change badges, for scripts; the app's tree is /api/filesystem/browse" },
  browse: { calls: [(api, at) => api.ask.browse({ ...selector(at.ref), compare: "previous" }), (api, at) => api.ask.browse({ ...selector(at.ref), base_file: at.base.file, base_line: at.base.line }), (api, at) => api.ask.browse({ ...selector(at.ref), compare: "none" })] },
  fileContent: { calls: [(api, at) => api.ask.fileContent({ ...selector(at.ref), path: at.filePath }), (api, at) => api.ask.fileContent({ ...selector(at.ref), path: at.filePath, offset: 1, limit: 2 })] },
  fileContentAt: { serverOnly: "a file by its path in the URL, for links and curl; the app sends the path in the query" },
  download: { method: "download" },
  downloadAt: { serverOnly: "a download by its path in the URL, for links and curl; the app sends the path in the query" },
  diff: { calls: [(api, at) => api.ask.diff(between(at.base, at.ref)), (api, at) => api.ask.diff({ ...between(at.base, at.ref), copies: "1" })] },
  diffStat: { calls: [(api, at) => api.ask.diffStat(between(at.base, at.ref))] },
  fileDiff: { calls: [(api, at) => api.ask.fileDiff({ ...between(at.base, at.ref), path: at.changedPath })] },
  sliceDiff: { calls: [(api, at) => api.ask.sliceDiff({ ...between(at.base, at.ref), slice_type: at.changedSlice })] },
  search: { calls: [(api, at) => api.ask.search({ ...selector(at.ref), q: "def", scope: "all", limit: 20 })] },
  events: { method: "subscribe" },
  bundleManifest: member("manifest"),
  bundleConfig: member("config"),
  bundleMetrics: member("metrics"),
  bundleError: member("error"),
  bundleRunContext: member("run-context"),
  bundleEval: member("eval"),
  bundlePromptOverrides: member("prompt-overrides"),
  bundleLogs: { calls: [(api, at) => api.ask.bundleLogs({ file: at.bundle }), (api, at) => api.ask.bundleLogs({ file: at.bundle, level: ["INFO", "ERROR"], limit: 5 })] },
  bundleLogFacets: { calls: [(api, at) => api.ask.bundleLogFacets({ file: at.bundle })] },
  bundleTranscript: { calls: [(api, at) => api.ask.bundleTranscript({ file: at.bundle }), (api, at) => api.ask.bundleTranscript({ file: at.bundle, offset: 1, limit: 3 })] },
  bundleTranscriptFacets: { calls: [(api, at) => api.ask.bundleTranscriptFacets({ file: at.bundle })] },
  bundleEnvironment: { calls: [(api, at) => api.ask.bundleEnvironment({ file: at.bundle })] },
  bundleFile: { calls: [(api, at) => api.ask.bundleFile({ file: at.bundle, "*": at.member })] },
  bundleMembers: { calls: [(api, at) => api.ask.bundleMembers({ file: at.bundle })] },
  bundleSummary: { calls: [(api, at) => api.ask.bundleSummary({ file: at.bundle })] },
  bundleRequest: { calls: [(api, at) => api.ask.bundleRequest({ file: at.bundle })] },
  bundleIntegrity: { calls: [(api, at) => api.ask.bundleIntegrity({ file: at.bundle })] },
  bundles: { calls: [(api) => api.ask.bundles({})] },
  bundleGroups: { calls: [(api) => api.ask.bundleGroups({})] },
  bundleCompare: { calls: [(api, at) => api.ask.bundleCompare({ target_file: at.bundle, base_file: at.otherBundle })] },
  bundleSearch: { calls: [(api) => api.ask.bundleSearch({ q: "calc" }), (api, at) => api.ask.bundleSearch({ q: "calc", file: at.bundle, in: "bundle", scope: ["logs", "members"], limit: 5 })] },
} as const satisfies { readonly [Name in ViewerRouteName]?: Coverage } & Record<(typeof UNASKED_ROUTES)[number], Coverage>;

/** What a derived request gives each parameter, by its name: the fixture's run, snapshot, comparison, group. */
const PARAMETER_VALUES: Readonly<Record<string, (at: Fixture) => unknown>> = {
  file: (at) => at.run,
  line: (at) => at.ref.line,
  session: () => ROOT_SESSION_ID,
  slice_type: (at) => at.sliceType,
  path: (at) => at.filePath,
  signature: (at) => at.signature,
  q: () => "def",
  offset: () => 0,
  limit: () => 5,
  base_file: (at) => at.base.file,
  base_line: (at) => at.base.line,
  target_file: (at) => at.ref.file,
  target_line: (at) => at.ref.line,
};

/**
 * The calls of a route `COVERAGE` does not list, from its request schemas: one with its
 * required parameters alone, one with every parameter the fixture has a value for (when that
 * is more). A required parameter without a value, or a request its schema refuses, fails:
 * such a route cannot be asked unlisted.
 */
function derivedCalls(name: AskedRouteName, entry: RouteEntry): Call[] {
  const parts = [entry.querystring, entry.params].filter((schema): schema is TSchema => schema !== undefined);
  const propertiesOf = (schema: TSchema) => Object.keys((schema as { properties?: object }).properties ?? {});
  const required = parts.flatMap((schema) => (schema as { required?: string[] }).required ?? []);
  const known = parts.flatMap(propertiesOf).filter((key) => key in PARAMETER_VALUES && !(entry.lists ?? []).includes(key));
  const request = (at: Fixture, names: readonly string[]) => {
    const built: Record<string, unknown> = {};
    for (const key of names) {
      const value = PARAMETER_VALUES[key];
      if (value === undefined) throw new Error(`${name}: the coverage test has no value for its required parameter ${key}; list its calls in COVERAGE`);
      built[key] = value(at);
    }
    for (const schema of parts) {
      const own = Object.fromEntries(Object.entries(built).filter(([key]) => propertiesOf(schema).includes(key)));
      if (!Value.Check(schema, own)) throw new Error(`${name}: the derived request ${JSON.stringify(own)} does not fit its schema; list its calls in COVERAGE`);
    }
    return built;
  };
  const ask = (names: readonly string[]): Call => (api, at) => (api.ask[name] as (params: object) => Promise<unknown>)(request(at, names));
  const every = [...new Set([...required, ...known])];
  return every.length > required.length ? [ask(required), ask(every)] : [ask(required)];
}

const BUNDLES = {
  "success.zip": "01-small-success/c958872d-4e41-4429-9f5f-48b054b977ea_20261126_054533.zip",
  "failed.zip": "02-failed-run/e523fd0d-e949-41b5-8de3-f0b1f5920007_20261126_054534.zip",
  "eval.zip": "08-eval/5637518f-e871-405b-b3de-d37cd38e5698/7cb96be5-fd3b-4479-b08c-2148288810d1_20261126_054556.zip",
};
const EXAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "examples", "snapshots");

/** The route a request path lands on, by the entries' Fastify paths (`:name` one segment, `*` the rest). */
function routeOf(pathname: string): ViewerRouteName | undefined {
  const matches = (Object.entries(VIEWER_ROUTES) as [ViewerRouteName, RouteEntry][]).filter(([, entry]) => {
    const pattern = entry.url.replace(/:[^/]+/g, "[^/]+").replace(/\*$/, ".+");
    return entry.method === "GET" && new RegExp(`^${pattern}$`).test(pathname);
  });
  return matches.length === 1 ? matches[0]?.[0] : undefined;
}

let dir = "";
let server: WinkApp;
let http: HttpApi;
let local: LocalApi;
let at: Fixture;
const fetched: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-route-coverage-"));
  for (const name of await readdir(EXAMPLE)) if (name !== "undo") await copyFile(path.join(EXAMPLE, name), path.join(dir, name));
  // The undo store only the server reads (timelines with `changes`, tool-call diffs).
  await mkdir(path.join(dir, "undo"));
  for (const entry of await readdir(path.join(EXAMPLE, "undo"), { recursive: true, withFileTypes: true })) {
    const relative = path.relative(path.join(EXAMPLE, "undo"), path.join(entry.parentPath, entry.name));
    if (entry.isDirectory()) await mkdir(path.join(dir, "undo", relative), { recursive: true });
    else await copyFile(path.join(entry.parentPath, entry.name), path.join(dir, "undo", relative));
  }
  for (const [name, fixture] of Object.entries(BUNDLES)) await copyFile(path.join(WINK_BUNDLE_FIXTURES, fixture), path.join(dir, name));
  server = await buildApp({ path: dir, watch: false, indexInBackground: false, logger: false });
  await server.app.listen({ host: "127.0.0.1", port: 0 });
  const address = server.app.server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  const origin = `http://127.0.0.1:${address.port}`;
  http = new HttpApi(origin);
  const inputs: LocalInput[] = await Promise.all(
    (await readdir(dir)).filter((name) => /\.(jsonl|zip)$/.test(name)).map(async (name) => ({ path: name, bytes: new Uint8Array(await readFile(path.join(dir, name))), lastModified: (await stat(path.join(dir, name))).mtimeMs })),
  );
  local = LocalApi.open(inputs, path.basename(dir));

  const run = `${ROOT_SESSION_ID}.jsonl`;
  const [base, ref] = [{ file: run, line: 1 }, { file: run, line: 2 }];
  const [meta, browse, diff, failures, timeline, members] = await Promise.all([
    local.ask.meta(selector(ref)),
    local.ask.browse({ ...selector(ref), compare: "none" }),
    local.ask.diff(between(base, ref)),
    local.ask.failures({}),
    http.ask.timeline(selector(ref)),
    local.ask.bundleMembers({ file: "success.zip" }),
  ]);
  const call = timeline.changes?.tool_calls.find((candidate) => candidate.files.length > 0);
  const values = {
    sliceType: meta.slices[0]?.slice_type,
    filePath: browse.root.children?.find((child) => child.type === "file")?.path,
    changedPath: diff.files.changes[0]?.path,
    changedSlice: diff.slices[0]?.slice_type,
    signature: failures.groups[0]?.signature,
    callId: call?.call_id,
    toolCallPath: call?.files[0]?.path,
    member: members.find((name) => name.endsWith(".md")),
  };
  for (const [name, value] of Object.entries(values)) if (value === undefined) throw new Error(`the fixture has no ${name}`);
  const found = values as Record<keyof typeof values, string>;
  at = {
    run,
    base,
    ref,
    ...found,
    toolCall: { callId: found.callId, path: found.toolCallPath },
    bundle: "success.zip",
    otherBundle: "failed.zip",
    withMember: { manifest: "success.zip", config: "success.zip", metrics: "success.zip", "run-context": "success.zip", error: "failed.zip", eval: "eval.zip", "prompt-overrides": "eval.zip" },
  };
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
    fetched.push(new URL(String(input)).pathname);
    return realFetch(input, init);
  });
}, 120_000);
afterAll(async () => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  await server?.app.close();
  await rm(dir, { recursive: true, force: true });
});

const listed: Partial<Record<ViewerRouteName, Coverage>> = COVERAGE;
/** Every route with its coverage: as listed, else (a route the views ask) its calls derived from its request schema. */
const entries = (Object.keys(VIEWER_ROUTES) as ViewerRouteName[]).map((name): [ViewerRouteName, Coverage | undefined] => {
  const asked = (ASKED_ROUTES as readonly string[]).includes(name);
  return [name, listed[name] ?? (asked ? { calls: derivedCalls(name as AskedRouteName, VIEWER_ROUTES[name]) } : undefined)];
});

describe("the route table and the web app's data layers", () => {
  it("covers every entry of the table, listing only the table's routes and each server-only one with why", () => {
    expect(Object.keys(COVERAGE).filter((name) => !(name in VIEWER_ROUTES))).toEqual([]);
    expect(entries.filter(([, coverage]) => coverage === undefined).map(([name]) => name)).toEqual([]);
    for (const [name, coverage] of entries) if (coverage !== undefined && "serverOnly" in coverage) expect(coverage.serverOnly.length, name).toBeGreaterThan(20);
  });

  it("answers every asked route in both layers, each asked here with its calls", () => {
    for (const api of [http, local]) expect(Object.keys(api.ask).sort()).toEqual([...ASKED_ROUTES].sort());
    for (const [name, coverage] of entries) if ((ASKED_ROUTES as readonly string[]).includes(name)) expect(coverage !== undefined && "calls" in coverage, name).toBe(true);
  });

  for (const [name, coverage] of entries) {
    if (coverage === undefined || !("calls" in coverage)) continue;
    const entry: RouteEntry = VIEWER_ROUTES[name];
    it(`${name}: HttpApi asks ${entry.url}, LocalApi answers it${coverage.localRefuses === undefined ? " in the entry's shape" : " with a 404"}`, async () => {
      const schema = entry.response;
      if (schema === undefined) throw new Error(`${name} has no response schema: list its Api method instead`);
      for (const call of coverage.calls) {
        fetched.length = 0;
        const served = await call(http, at);
        expect(fetched.length, `${name}: HttpApi sent no request`).toBeGreaterThan(0);
        expect(fetched.map(routeOf), `${name}: ${fetched.join(", ")}`).toEqual(fetched.map(() => name));
        expect([...Value.Errors(schema, served)].slice(0, 3), `${name}: the server's answer`).toEqual([]);
        if (coverage.localRefuses !== undefined) {
          await expect(call(local, at)).rejects.toMatchObject({ status: 404 });
          continue;
        }
        const answered = await call(local, at);
        expect([...Value.Errors(schema, answered)].slice(0, 3), `${name}: LocalApi's answer`).toEqual([]);
        expect(Value.Check(schema, answered)).toBe(true);
      }
    }, 60_000);
  }

  it("download: both layers save the file through a link, HttpApi's on the route, LocalApi's with the same bytes", async () => {
    const window = new Window();
    vi.stubGlobal("document", window.document);
    const clicked: string[] = [];
    window.document.addEventListener("click", (event) => {
      const target = event.target as unknown as { href: string; download: string };
      clicked.push(target.href);
      event.preventDefault();
    });
    try {
      await http.download({ ...selector(at.ref), path: at.filePath });
      await local.download({ ...selector(at.ref), path: at.filePath });
    } finally {
      vi.unstubAllGlobals();
    }
    expect(clicked).toHaveLength(2);
    const [served = "", saved = ""] = clicked;
    expect(routeOf(new URL(served).pathname)).toBe("download" satisfies ViewerRouteName);
    const answer = await fetch(served);
    expect(answer.headers.get("content-disposition")).toContain("attachment");
    const blob = resolveObjectURL(saved);
    expect(blob, saved).toBeDefined();
    expect(Buffer.from(await (blob as Blob).arrayBuffer())).toEqual(Buffer.from(await answer.arrayBuffer()));
  });

  it("events: both layers subscribe (LocalApi's opened files never change)", () => {
    const asked: Api = local;
    const unsubscribe = asked.subscribe(() => undefined);
    expect(typeof unsubscribe).toBe("function");
    unsubscribe();
    expect(typeof HttpApi.prototype.subscribe).toBe("function");
    expect(new HttpApi("/wink").url(VIEWER_ROUTES.events, {})).toBe("/wink/api/events");
  });
});
