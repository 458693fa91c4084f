/**
 * `Api` over a wink-debug server. Responses are read with the shared lossless parser, not
 * `response.json()`: integers beyond 2^53 arrive as `bigint`, so what the user sees is
 * exactly what the agent wrote.
 */
import { parsePythonJson } from "../../shared/session/browser.js";
import { routeUrl } from "../../shared/viewer/routes/browser.js";
import type { RouteEntry, RouteInput } from "../../shared/viewer/routes/index.js";
import { ROUTES } from "./routes.js";
import type { BrowserRoute } from "./routes.js";
import type { Api, ChangeNotice, DiffOptions, RunPageQuery, SearchScope, SnapshotRef } from "./api.js";
import { ApiError } from "./api.js";
import { subscribeShared } from "./shared-events.js";
import type * as T from "./api.js";
import { HttpBundleApi } from "./bundle-http.js";
import { pageBasePath } from "./page-base.js";
import type { RouteGet } from "./route-get.js";

const selector = (ref: SnapshotRef) => ({ file: ref.file, line: ref.line });
const side = <Prefix extends "base" | "target">(prefix: Prefix, ref: SnapshotRef) => ({ [`${prefix}_file`]: ref.file, [`${prefix}_line`]: ref.line }) as { [Key in `${Prefix}_file`]: string } & { [Key in `${Prefix}_line`]: number };
const sides = (base: SnapshotRef, target: SnapshotRef) => ({ ...side("base", base), ...side("target", target) });

/**
 * Reads a response body as JSON; throws `ApiError` with the server's detail. `lossless`
 * keeps integers beyond 2^53 exact (as `bigint`): needed where agent data is free-form
 * (slice items). Other answers have only counts, sizes and strings, and skip the extra
 * pass (a 50,000-file tree is 6 MB of JSON).
 */
export async function readJson(response: Response, lossless = true): Promise<unknown> {
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text === "" ? null : lossless ? parsePythonJson(text) : JSON.parse(text);
  } catch {
    if (response.ok) throw new ApiError(response.status, `The server sent a response that is not JSON (${response.url})`);
  }
  if (!response.ok) {
    const fields = typeof body === "object" && body !== null ? (body as { detail?: unknown; code?: unknown }) : {};
    const detail = typeof fields.detail === "string" ? fields.detail : `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, detail, typeof fields.code === "string" ? fields.code : null);
  }
  return body;
}

export class HttpApi implements Api {
  readonly kind = "http" as const;
  label = "";
  readonly bundles = new HttpBundleApi((route, params) => this.get(route, params));

  /** `base`: what every URL starts with, by default the page's base path (`--public-url`). */
  constructor(private readonly base: string = pageBasePath()) {}

  /**
   * Every JSON request of the app: the route's URL under the base path, read losslessly
   * where the entry says its answer carries agent data. The answer is typed by the entry's
   * schema, not checked against it (the server validated it on the way out).
   */
  readonly get: RouteGet = async (route, params) => {
    let response: Response;
    try {
      response = await fetch(this.url(route, params), { headers: { accept: "application/json" } });
    } catch (error) {
      throw new ApiError(0, `Cannot reach the wink-debug server (${error instanceof Error ? error.message : String(error)})`);
    }
    return (await readJson(response, route.lossless === true)) as never;
  };

  /** The URL of a request to `route`, under the base path (also the download link's and the event stream's). */
  url<const Entry extends RouteEntry>(route: BrowserRoute<Entry>, params: RouteInput<Entry>): string {
    return `${this.base}${routeUrl(route, params)}`;
  }

  /** Every session file: the server answers a page of them at a time (500 by default). */
  async files(): Promise<T.FileListResponse> {
    const list = await this.get(ROUTES.files, {});
    while (list.files.length < list.total) {
      const next = await this.get(ROUTES.files, { offset: list.files.length });
      if (next.files.length === 0) break;
      list.files.push(...next.files);
    }
    this.label = list.root;
    return list;
  }

  failures(): Promise<T.EvalSummaryResponse> {
    return this.get(ROUTES.failures, {});
  }

  failureOccurrences(signature: string): Promise<T.FailureOccurrencesResponse> {
    return this.get(ROUTES.failureOccurrences, { signature });
  }

  async runs(page: RunPageQuery = {}): Promise<T.RunListResponse> {
    const list = await this.get(ROUTES.runs, { offset: page.offset, limit: page.limit, q: page.q || undefined, since: page.since || undefined, until: page.until || undefined });
    this.label = list.root;
    return list;
  }

  run(file?: string): Promise<T.RunResponse> {
    return this.get(ROUTES.run, { file });
  }

  runSession(file: string, session: string, offset: number, limit: number): Promise<T.RunSessionPageResponse> {
    return this.get(ROUTES.runSession, { file, session, offset, limit });
  }

  runFailures(file: string, offset: number, limit: number): Promise<T.RunFailurePageResponse> {
    return this.get(ROUTES.runFailures, { file, offset, limit });
  }

  runSearch(file: string, session: string | null, q: string, regex: boolean, limit: number): Promise<T.RunSearchResponse> {
    return this.get(ROUTES.runSearch, { file, session: session ?? undefined, q, regex: regex ? "1" : undefined, limit });
  }

  async meta(ref?: SnapshotRef): Promise<T.SnapshotMetaResponse> {
    // The route answers a bundle file with the bundle's meta (`bundles.meta` reads that one); the app asks this one for a line's.
    return (await this.get(ROUTES.meta, ref === undefined ? {} : selector(ref))) as T.SnapshotMetaResponse;
  }

  timeline(ref: SnapshotRef): Promise<T.TimelineResponse> {
    return this.get(ROUTES.timeline, selector(ref));
  }

  slicePage(ref: SnapshotRef, sliceType: string, offset: number, limit: number): Promise<T.SlicePageResponse> {
    return this.get(ROUTES.slicePage, { slice_type: sliceType, ...selector(ref), offset, limit });
  }

  filesystemMeta(ref: SnapshotRef): Promise<T.FilesystemMetaResponse> {
    return this.get(ROUTES.filesystemMeta, selector(ref));
  }

  browse(ref: SnapshotRef, base: SnapshotRef | "previous" | "none"): Promise<T.BrowseResponse> {
    const compare = typeof base === "string" ? { compare: base } : side("base", base);
    return this.get(ROUTES.browse, { ...selector(ref), ...compare });
  }

  fileContent(ref: SnapshotRef, path: string, range: { offset?: number; limit?: number } = {}): Promise<T.FileContentResponse> {
    return this.get(ROUTES.fileContent, { ...selector(ref), path, offset: range.offset, limit: range.limit });
  }

  async download(ref: SnapshotRef, path: string): Promise<void> {
    // The server answers with `content-disposition: attachment` and a sandboxing CSP, so
    // following the link saves the file and never shows it as a page of this origin.
    const link = document.createElement("a");
    link.href = this.url(ROUTES.download, { ...selector(ref), path });
    link.download = path.slice(path.lastIndexOf("/") + 1);
    link.rel = "noopener";
    document.body.append(link);
    link.click();
    link.remove();
  }

  diff(base: SnapshotRef, target: SnapshotRef, options: DiffOptions = {}): Promise<T.SnapshotDiffResponse> {
    return this.get(ROUTES.diff, { ...sides(base, target), copies: options.copies === true ? "1" : undefined });
  }

  diffStat(base: SnapshotRef, target: SnapshotRef, options: DiffOptions = {}): Promise<T.DiffStatResponse> {
    return this.get(ROUTES.diffStat, { ...sides(base, target), copies: options.copies === true ? "1" : undefined });
  }

  fileDiff(base: SnapshotRef, target: SnapshotRef, path: string, basePath: string | null = null): Promise<T.FileDiffResponse> {
    return this.get(ROUTES.fileDiff, { ...sides(base, target), path, base_path: basePath ?? undefined });
  }

  sliceDiff(base: SnapshotRef, target: SnapshotRef, sliceType: string): Promise<T.SliceDiffResponse> {
    return this.get(ROUTES.sliceDiff, { ...sides(base, target), slice_type: sliceType });
  }

  search(ref: SnapshotRef, q: string, scope: SearchScope, limit: number): Promise<T.SearchResponse> {
    return this.get(ROUTES.search, { ...selector(ref), q, scope, limit });
  }

  toolCallDiff(ref: SnapshotRef, callId: string, path: string): Promise<T.ToolCallFileDiffResponse> {
    return this.get(ROUTES.toolCallDiff, { ...selector(ref), call_id: callId, path });
  }

  subscribe(onChange: (notice: ChangeNotice | null) => void): () => void {
    return subscribeShared(this.url(ROUTES.events, {}), (event) => {
      if (event.type !== "change" || event.data === null) return onChange(null);
      try {
        onChange(parsePythonJson(event.data) as unknown as ChangeNotice);
      } catch {
        onChange(null);
      }
    });
  }

}
