/**
 * HttpApi's one typed `get`: a real server on loopback, served under `/wink/` as behind a
 * proxy, asked through the route table. What goes on the wire (base path, encoding, comma
 * lists, omitted values), what comes back (lossless where the entry says so) and the errors,
 * as the app reads them.
 */
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Window } from "happy-dom";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { WINK_BUNDLE_FIXTURES } from "../../fixtures/paths.js";
import { buildApp } from "../../server/app.js";
import type { WinkApp } from "../../server/app.js";
import { parsePublicUrl } from "../../server/http/public-address.js";
import { ROUTES } from "./routes.js";
import { ApiError } from "./api.js";
import { HttpApi } from "./http-api.js";

const BUNDLE = "bundles/small success.zip";
const SESSION = "runs/plan ü.jsonl";
const SLICE = "app/models:Plan v2";
/** Beyond 2^53: exact only through the lossless parser. */
const BIG = 9_007_199_254_740_993n;

let dir = "";
let server: WinkApp;
let origin = "";
const fetched: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-http-api-"));
  await mkdir(path.join(dir, "bundles"));
  await mkdir(path.join(dir, "runs"));
  await copyFile(path.join(WINK_BUNDLE_FIXTURES, "01-small-success", "c958872d-4e41-4429-9f5f-48b054b977ea_20261126_054533.zip"), path.join(dir, BUNDLE));
  const item = `{"__type__": "app/models:Plan v2", "count": ${BIG}, "note": "a&b=c"}`;
  await writeFile(
    path.join(dir, SESSION),
    `{"children_ids": [], "created_at": "2026-11-22T01:00:00.000000+00:00", "parent_id": null, "slices": [{"item_type": "${SLICE}", "items": [${item}], "slice_type": "${SLICE}"}], "tags": {"session_id": "s-1"}, "version": "1"}\n`,
  );
  server = await buildApp({ path: dir, recursive: true, watch: false, indexInBackground: false, logger: false, publicAddress: parsePublicUrl("http://127.0.0.1/wink/") });
  await server.app.listen({ host: "127.0.0.1", port: 0 });
  const address = server.app.server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  origin = `http://127.0.0.1:${address.port}`;
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
    fetched.push(String(input).slice(origin.length));
    return realFetch(input, init);
  });
});
afterEach(() => {
  fetched.length = 0;
});
afterAll(async () => {
  vi.restoreAllMocks();
  await server.app.close();
  await rm(dir, { recursive: true, force: true });
});

describe("HttpApi.get", () => {
  it("asks every route under the base path and types the answer by the entry", async () => {
    const api = new HttpApi(`${origin}/wink`);
    const list = await api.files();
    expect(list.files.map((file) => file.path).sort()).toEqual([BUNDLE, SESSION]);
    expect(api.label).toBe(list.root);
    const runs = await api.get(ROUTES.runs, { limit: 1, q: undefined });
    expect(runs.runs).toHaveLength(1);
    expect(fetched).toEqual(["/wink/api/files", "/wink/api/runs?limit=1"]);
  });

  it("encodes path parameters and query values, and reads agent data losslessly where the entry says so", async () => {
    const api = new HttpApi(`${origin}/wink`);
    const page = await api.ask.slicePage({ slice_type: SLICE, file: SESSION, line: 1 , offset: 0, limit: 5 });
    expect(fetched).toEqual(["/wink/api/slices/app%2Fmodels%3APlan%20v2?file=runs%2Fplan+%C3%BC.jsonl&line=1&offset=0&limit=5"]);
    expect(page.items).toEqual([expect.objectContaining({ count: BIG, note: "a&b=c" })]);
    const members = await api.ask.bundleMembers({ file: BUNDLE });
    const readme = members.find((member) => member.endsWith("README.md"));
    expect(readme).toBeDefined();
    const file = await api.ask.bundleFile({ "*": readme ?? "", file: BUNDLE });
    expect(file).toMatchObject({ type: "markdown", content: expect.stringContaining("# calc-service") });
    expect(fetched.at(-1)).toBe(`/wink/api/files/${readme}?file=bundles%2Fsmall+success.zip`);
  });

  it("sends a list as WINK's comma list and leaves out empty lists and unset filters", async () => {
    const api = new HttpApi(`${origin}/wink`);
    const all = await api.ask.bundleLogs({ file: BUNDLE });
    const levels = [...new Set(all.entries.map((entry) => entry.level))];
    expect(levels.length).toBeGreaterThan(1);
    const [first = "", second = ""] = levels;
    const page = await api.ask.bundleLogs({ file: BUNDLE, limit: 3, level: [first, second], logger: [], search: undefined });
    expect(fetched.at(-1)).toBe(`/wink/api/logs?file=bundles%2Fsmall+success.zip&limit=3&level=${first}%2C${second}`);
    expect(page.entries.length).toBeGreaterThan(0);
    for (const entry of page.entries) expect([first, second]).toContain(entry.level);
    await api.ask.bundleSearch({ q: "calc", in: "all", scope: ["logs", "members"], limit: 2 });
    expect(fetched.at(-1)).toBe("/wink/api/bundles/search?q=calc&in=all&scope=logs%2Cmembers&limit=2");
  });

  it("throws the server's error as an ApiError, a network failure with status 0", async () => {
    const api = new HttpApi(`${origin}/wink`);
    await expect(api.ask.meta({ file: "nope.jsonl", line: 1 })).rejects.toMatchObject({ name: "ApiError", status: 404, code: "WD_ERR_NOT_FOUND" });
    // Outside the base path the server answers nothing of the viewer's.
    await expect(new HttpApi(origin).files()).rejects.toMatchObject({ status: 404, detail: expect.stringContaining("the viewer is served under /wink/") });
    const unreachable = new HttpApi("http://127.0.0.1:1");
    const error: unknown = await unreachable.ask.failures({}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 0, detail: expect.stringContaining("Cannot reach the wink-debug server") });
  });
});

describe("HttpApi's base path", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("comes from the page's wink-base-path meta, without its trailing slash", () => {
    const window = new Window();
    window.document.head.innerHTML = '<meta name="wink-base-path" content="/tools/wink/">';
    vi.stubGlobal("document", window.document);
    expect(new HttpApi().url(ROUTES.fileContent, { file: "a.jsonl", line: 2, path: "src/x y.py" })).toBe("/tools/wink/api/filesystem/file?file=a.jsonl&line=2&path=src%2Fx+y.py");
    expect(new HttpApi().url(ROUTES.events, {})).toBe("/tools/wink/api/events");
  });

  it("is the origin's root without the meta, or with one that names another origin", () => {
    const window = new Window();
    vi.stubGlobal("document", window.document);
    expect(new HttpApi().url(ROUTES.files, {})).toBe("/api/files");
    window.document.head.innerHTML = '<meta name="wink-base-path" content="//evil.example/">';
    expect(new HttpApi().url(ROUTES.files, {})).toBe("/api/files");
  });
});
