/**
 * `BundleApi` over a wink-debug server: WINK's bundle routes and ours (docs/api.md,
 * "WINK debug bundles"). Agent data (log context, members, search snippets) is read with
 * the lossless parser, so integers beyond 2^53 stay exact.
 */
import type * as B from "../../shared/debug-bundle/index.js";
import { ApiError } from "./api.js";
import type { BundleApi, BundleMemberKind, BundleSearchParams, LogsParams, TranscriptParams } from "./bundle-api.js";

type Params = Record<string, string | number | undefined>;
type Get = <R>(path: string, params?: Params, lossless?: boolean) => Promise<R>;

const joined = (values: readonly string[] | undefined): string | undefined => (values === undefined || values.length === 0 ? undefined : values.join(","));

const MEMBER_ROUTES: Readonly<Record<BundleMemberKind, string>> = {
  manifest: "/api/manifest",
  config: "/api/config",
  metrics: "/api/metrics",
  error: "/api/error",
  "run-context": "/api/bundle/run-context",
  eval: "/api/bundle/eval",
  "prompt-overrides": "/api/bundle/prompt-overrides",
};

export class HttpBundleApi implements BundleApi {
  constructor(private readonly get: Get) {}

  list(): Promise<B.BundleListItemView[]> {
    return this.get("/api/bundles");
  }

  groups(): Promise<B.BundleGroupView[]> {
    return this.get("/api/bundles/groups", {}, true);
  }

  summary(file: string): Promise<B.BundleSummaryView> {
    return this.get("/api/bundle", { file }, true);
  }

  meta(file: string): Promise<B.BundleMetaView> {
    return this.get("/api/meta", { file });
  }

  logs(file: string, params: LogsParams = {}): Promise<B.LogPageView> {
    return this.get(
      "/api/logs",
      {
        file,
        offset: params.offset,
        limit: params.limit ?? undefined,
        level: joined(params.levels),
        exclude_level: joined(params.excludeLevels),
        logger: joined(params.loggers),
        exclude_logger: joined(params.excludeLoggers),
        event: joined(params.events),
        exclude_event: joined(params.excludeEvents),
        search: params.search,
        since: params.since,
        until: params.until,
        at: params.at,
        at_line: params.atLine,
      },
      true,
    );
  }

  logFacets(file: string): Promise<B.LogFacetsView> {
    return this.get("/api/logs/facets", { file });
  }

  transcript(file: string, params: TranscriptParams = {}): Promise<B.TranscriptPageView> {
    return this.get(
      "/api/transcript",
      {
        file,
        offset: params.offset,
        limit: params.limit ?? undefined,
        source: joined(params.sources),
        exclude_source: joined(params.excludeSources),
        entry_type: joined(params.entryTypes),
        exclude_entry_type: joined(params.excludeEntryTypes),
        search: params.search,
        at_rowid: params.atRowid,
      },
      true,
    );
  }

  transcriptFacets(file: string): Promise<B.TranscriptFacetsView> {
    return this.get("/api/transcript/facets", { file });
  }

  environment(file: string): Promise<B.EnvironmentView> {
    return this.get("/api/environment", { file }, true);
  }

  request(file: string): Promise<B.BundleRequestView> {
    return this.get("/api/bundle/request", { file }, true);
  }

  async member(file: string, kind: BundleMemberKind): Promise<unknown> {
    try {
      return await this.get<unknown>(MEMBER_ROUTES[kind], { file }, true);
    } catch (error) {
      // WINK's 404 for a member the bundle lacks, not for a bundle that is not there.
      if (error instanceof ApiError && error.status === 404 && /not found in bundle|No error in bundle/.test(error.detail)) return null;
      throw error;
    }
  }

  members(file: string): Promise<string[]> {
    return this.get("/api/bundle/files", { file });
  }

  memberFile(file: string, member: string): Promise<B.BundleFileView> {
    return this.get(`/api/files/${member.split("/").map(encodeURIComponent).join("/")}`, { file }, true);
  }

  integrity(file: string): Promise<B.BundleIntegrityView> {
    return this.get("/api/bundle/integrity", { file });
  }

  compare(target: string, base?: string): Promise<B.BundleCompareView> {
    return this.get("/api/bundles/compare", { target_file: target, base_file: base }, true);
  }

  search(query: string, params: BundleSearchParams = {}): Promise<B.BundleSearchView> {
    return this.get("/api/bundles/search", { q: query, file: params.file, in: params.within, scope: joined(params.scopes), limit: params.limit, regex: params.regex === true ? "1" : undefined });
  }
}
