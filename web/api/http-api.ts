/**
 * `Api` over a wink-debug server. Responses are read with the shared lossless parser, not
 * `response.json()`: integers beyond 2^53 arrive as `bigint`, so what the user sees is
 * exactly what the agent wrote.
 */
import { parsePythonJson } from "../../shared/session/browser.js";
import type { Api, ChangeNotice, DiffOptions, RunPageQuery, SearchScope, SnapshotRef } from "./api.js";
import { ApiError } from "./api.js";
import { subscribeShared } from "./shared-events.js";
import type * as T from "./api.js";
import { HttpBundleApi } from "./bundle-http.js";
import { pageBasePath } from "./page-base.js";

type Params = Record<string, string | number | undefined>;

function query(params: Params): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}

const selector = (ref: SnapshotRef): Params => ({ file: ref.file, line: ref.line });
const side = (prefix: "base" | "target", ref: SnapshotRef): Params => ({ [`${prefix}_file`]: ref.file, [`${prefix}_line`]: ref.line });

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
  readonly bundles = new HttpBundleApi((path, params, lossless) => this.get(path, params, lossless));

  /** `base`: what every URL starts with, by default the page's base path (`--public-url`). */
  constructor(private readonly base: string = pageBasePath()) {}

  private async get<R>(path: string, params: Params = {}, lossless = false): Promise<R> {
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}${query(params)}`, { headers: { accept: "application/json" } });
    } catch (error) {
      throw new ApiError(0, `Cannot reach the wink-debug server (${error instanceof Error ? error.message : String(error)})`);
    }
    return (await readJson(response, lossless)) as R;
  }

  /** Every session file: the server answers a page of them at a time (500 by default). */
  async files(): Promise<T.FileListResponse> {
    const list = await this.get<T.FileListResponse>("/api/files");
    while (list.files.length < list.total) {
      const next = await this.get<T.FileListResponse>("/api/files", { offset: list.files.length });
      if (next.files.length === 0) break;
      list.files.push(...next.files);
    }
    this.label = list.root;
    return list;
  }

  failures(): Promise<T.EvalSummaryResponse> {
    return this.get("/api/failures");
  }

  failureOccurrences(signature: string): Promise<T.FailureOccurrencesResponse> {
    return this.get("/api/failures/occurrences", { signature });
  }

  async runs(page: RunPageQuery = {}): Promise<T.RunListResponse> {
    const list = await this.get<T.RunListResponse>("/api/runs", { offset: page.offset, limit: page.limit, q: page.q || undefined, since: page.since || undefined, until: page.until || undefined });
    this.label = list.root;
    return list;
  }

  run(file?: string): Promise<T.RunResponse> {
    return this.get("/api/run", { file });
  }

  runSession(file: string, session: string, offset: number, limit: number): Promise<T.RunSessionPageResponse> {
    return this.get("/api/run/session", { file, session, offset, limit });
  }

  runSearch(file: string, session: string | null, q: string, regex: boolean, limit: number): Promise<T.RunSearchResponse> {
    return this.get("/api/run/search", { file, session: session ?? undefined, q, regex: regex ? "1" : undefined, limit });
  }

  meta(ref?: SnapshotRef): Promise<T.SnapshotMetaResponse> {
    return this.get("/api/meta", ref === undefined ? {} : selector(ref));
  }

  timeline(ref: SnapshotRef): Promise<T.TimelineResponse> {
    return this.get("/api/timeline", selector(ref));
  }

  slicePage(ref: SnapshotRef, sliceType: string, offset: number, limit: number): Promise<T.SlicePageResponse> {
    return this.get(`/api/slices/${encodeURIComponent(sliceType)}`, { ...selector(ref), offset, limit }, true);
  }

  filesystemMeta(ref: SnapshotRef): Promise<T.FilesystemMetaResponse> {
    return this.get("/api/filesystem/meta", selector(ref));
  }

  browse(ref: SnapshotRef, base: SnapshotRef | "previous" | "none"): Promise<T.BrowseResponse> {
    const compare = typeof base === "string" ? { compare: base } : side("base", base);
    return this.get("/api/filesystem/browse", { ...selector(ref), ...compare });
  }

  fileContent(ref: SnapshotRef, path: string, range: { offset?: number; limit?: number } = {}): Promise<T.FileContentResponse> {
    return this.get("/api/filesystem/file", { ...selector(ref), path, offset: range.offset, limit: range.limit });
  }

  async download(ref: SnapshotRef, path: string): Promise<void> {
    // The server answers with `content-disposition: attachment` and a sandboxing CSP, so
    // following the link saves the file and never shows it as a page of this origin.
    const link = document.createElement("a");
    link.href = `${this.base}/api/filesystem/download${query({ ...selector(ref), path })}`;
    link.download = path.slice(path.lastIndexOf("/") + 1);
    link.rel = "noopener";
    document.body.append(link);
    link.click();
    link.remove();
  }

  diff(base: SnapshotRef, target: SnapshotRef, options: DiffOptions = {}): Promise<T.SnapshotDiffResponse> {
    return this.get("/api/diff", { ...side("base", base), ...side("target", target), copies: options.copies === true ? "1" : undefined });
  }

  diffStat(base: SnapshotRef, target: SnapshotRef, options: DiffOptions = {}): Promise<T.DiffStatResponse> {
    return this.get("/api/diff/stat", { ...side("base", base), ...side("target", target), copies: options.copies === true ? "1" : undefined });
  }

  fileDiff(base: SnapshotRef, target: SnapshotRef, path: string, basePath: string | null = null): Promise<T.FileDiffResponse> {
    return this.get("/api/diff/file", { ...side("base", base), ...side("target", target), path, base_path: basePath ?? undefined });
  }

  sliceDiff(base: SnapshotRef, target: SnapshotRef, sliceType: string): Promise<T.SliceDiffResponse> {
    return this.get("/api/diff/slice", { ...side("base", base), ...side("target", target), slice_type: sliceType });
  }

  search(ref: SnapshotRef, q: string, scope: SearchScope, limit: number): Promise<T.SearchResponse> {
    return this.get("/api/search", { ...selector(ref), q, scope, limit });
  }

  toolCallDiff(ref: SnapshotRef, callId: string, path: string): Promise<T.ToolCallFileDiffResponse> {
    return this.get("/api/timeline/tool-call-diff", { ...selector(ref), call_id: callId, path });
  }

  subscribe(onChange: (notice: ChangeNotice | null) => void): () => void {
    return subscribeShared(`${this.base}/api/events`, (event) => {
      if (event.type !== "change" || event.data === null) return onChange(null);
      try {
        onChange(parsePythonJson(event.data) as unknown as ChangeNotice);
      } catch {
        onChange(null);
      }
    });
  }

}
