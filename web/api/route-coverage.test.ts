/**
 * The web app's two data layers answer the same route table. Every entry of `VIEWER_ROUTES`
 * is listed here: either with the `Api` calls that use it, each asked of `HttpApi` (against
 * a real server on loopback: the request must land on that entry) and of `LocalApi` over the
 * same files (its answer must validate against the entry's response schema), or as
 * server-only with the reason the app never asks it. A new entry fails the type check and
 * this test until it is listed: with its calls, both layers need an answer.
 */
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, stat } from "node:fs/promises";
import { resolveObjectURL } from "node:buffer";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Window } from "happy-dom";
import { Value } from "typebox/value";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ROOT_SESSION_ID } from "../../examples/agent-run.js";
import { WINK_BUNDLE_FIXTURES } from "../../fixtures/paths.js";
import { buildApp } from "../../server/app.js";
import type { WinkApp } from "../../server/app.js";
import { VIEWER_ROUTES } from "../../shared/viewer/routes/index.js";
import type { RouteEntry, ViewerRouteName } from "../../shared/viewer/routes/index.js";
import type { Api, SnapshotRef } from "./api.js";
import type { BundleMemberKind } from "./bundle-api.js";
import { HttpApi } from "./http-api.js";
import { LocalApi } from "./local-api.js";
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

const member = (kind: BundleMemberKind): Coverage => ({ calls: [(api, at) => api.bundles.member(at.withMember[kind], kind)] });

const COVERAGE = {
  meta: { calls: [(api, at) => api.meta(at.ref), (api, at) => api.bundles.meta(at.bundle)] },
  entries: { serverOnly: "WINK's viewer API: the app reads a file's lines from /api/files and /api/run" },
  slicePage: { calls: [(api, at) => api.slicePage(at.ref, at.sliceType, 0, 5)] },
  raw: { serverOnly: "WINK's viewer API: the line as written; the app reads slices through /api/slices" },
  snapshots: { serverOnly: "WINK's viewer API: the app lists /api/files and /api/runs" },
  reload: { serverOnly: "WINK's viewer API: moves the server's current snapshot; the app navigates by URL" },
  select: { serverOnly: "WINK's viewer API: moves the server's current snapshot; the app navigates by URL" },
  switch: { serverOnly: "WINK's viewer API: moves the server's current snapshot; the app navigates by URL" },
  files: { calls: [(api) => api.files()] },
  runs: { calls: [(api) => api.runs(), (api) => api.runs({ offset: 0, limit: 1, q: "5f0c" })] },
  run: { calls: [(api) => api.run(), (api, at) => api.run(at.run)] },
  runSearch: { calls: [(api, at) => api.runSearch(at.run, null, "def", false, 10)] },
  runSession: { calls: [(api, at) => api.runSession(at.run, ROOT_SESSION_ID, 0, 10)] },
  runFailures: { calls: [(api, at) => api.runFailures(at.run, 0, 10)] },
  failures: { calls: [(api) => api.failures()] },
  failureOccurrences: { calls: [(api, at) => api.failureOccurrences(at.signature)] },
  timeline: { calls: [(api, at) => api.timeline(at.ref)] },
  toolCallDiff: {
    calls: [(api, at) => api.toolCallDiff(at.ref, at.toolCall.callId, at.toolCall.path)],
    localRefuses: "files opened in the page come without the undo store, so their timelines list no tool-call changes to ask about",
  },
  filesystemMeta: { calls: [(api, at) => api.filesystemMeta(at.ref)] },
  fileTree: { serverOnly: "the whole tree without change badges, for scripts; the app's tree is /api/filesystem/browse" },
  browse: { calls: [(api, at) => api.browse(at.ref, "previous"), (api, at) => api.browse(at.ref, at.base), (api, at) => api.browse(at.ref, "none")] },
  fileContent: { calls: [(api, at) => api.fileContent(at.ref, at.filePath), (api, at) => api.fileContent(at.ref, at.filePath, { offset: 1, limit: 2 })] },
  fileContentAt: { serverOnly: "a file by its path in the URL, for links and curl; the app sends the path in the query" },
  download: { method: "download" },
  downloadAt: { serverOnly: "a download by its path in the URL, for links and curl; the app sends the path in the query" },
  diff: { calls: [(api, at) => api.diff(at.base, at.ref), (api, at) => api.diff(at.base, at.ref, { copies: true })] },
  diffStat: { calls: [(api, at) => api.diffStat(at.base, at.ref)] },
  fileDiff: { calls: [(api, at) => api.fileDiff(at.base, at.ref, at.changedPath)] },
  sliceDiff: { calls: [(api, at) => api.sliceDiff(at.base, at.ref, at.changedSlice)] },
  search: { calls: [(api, at) => api.search(at.ref, "def", "all", 20)] },
  events: { method: "subscribe" },
  bundleManifest: member("manifest"),
  bundleConfig: member("config"),
  bundleMetrics: member("metrics"),
  bundleError: member("error"),
  bundleRunContext: member("run-context"),
  bundleEval: member("eval"),
  bundlePromptOverrides: member("prompt-overrides"),
  bundleLogs: { calls: [(api, at) => api.bundles.logs(at.bundle), (api, at) => api.bundles.logs(at.bundle, { levels: ["INFO", "ERROR"], limit: 5 })] },
  bundleLogFacets: { calls: [(api, at) => api.bundles.logFacets(at.bundle)] },
  bundleTranscript: { calls: [(api, at) => api.bundles.transcript(at.bundle), (api, at) => api.bundles.transcript(at.bundle, { offset: 1, limit: 3 })] },
  bundleTranscriptFacets: { calls: [(api, at) => api.bundles.transcriptFacets(at.bundle)] },
  bundleEnvironment: { calls: [(api, at) => api.bundles.environment(at.bundle)] },
  bundleFile: { calls: [(api, at) => api.bundles.memberFile(at.bundle, at.member)] },
  bundleMembers: { calls: [(api, at) => api.bundles.members(at.bundle)] },
  bundleSummary: { calls: [(api, at) => api.bundles.summary(at.bundle)] },
  bundleRequest: { calls: [(api, at) => api.bundles.request(at.bundle)] },
  bundleIntegrity: { calls: [(api, at) => api.bundles.integrity(at.bundle)] },
  bundles: { calls: [(api) => api.bundles.list()] },
  bundleGroups: { calls: [(api) => api.bundles.groups()] },
  bundleCompare: { calls: [(api, at) => api.bundles.compare(at.bundle, at.otherBundle)] },
  bundleSearch: { calls: [(api) => api.bundles.search("calc"), (api, at) => api.bundles.search("calc", { file: at.bundle, within: "bundle", scopes: ["logs", "members"], limit: 5 })] },
} as const satisfies Record<ViewerRouteName, Coverage>;

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
    local.meta(ref),
    local.browse(ref, "none"),
    local.diff(base, ref),
    local.failures(),
    http.timeline(ref),
    local.bundles.members("success.zip"),
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

const entries = Object.entries(COVERAGE) as [ViewerRouteName, Coverage][];

describe("the route table and the web app's data layers", () => {
  it("lists every entry of the table once, the app's and the server's alone", () => {
    expect(Object.keys(COVERAGE).sort()).toEqual(Object.keys(VIEWER_ROUTES).sort());
    for (const [name, coverage] of entries) if ("serverOnly" in coverage) expect(coverage.serverOnly.length, name).toBeGreaterThan(20);
  });

  for (const [name, coverage] of entries) {
    if (!("calls" in coverage)) continue;
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
      await http.download(at.ref, at.filePath);
      await local.download(at.ref, at.filePath);
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
