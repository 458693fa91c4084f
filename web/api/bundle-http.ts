/**
 * `BundleApi` over a wink-debug server: WINK's bundle routes and ours (docs/api.md,
 * "WINK debug bundles"). Agent data (log context, members, search snippets) is read with
 * the lossless parser, so integers beyond 2^53 stay exact.
 */
import type * as B from "../../shared/debug-bundle/index.js";
import { ApiError } from "./api.js";
import type { BundleApi, BundleMemberKind, BundleSearchParams, LogsParams, TranscriptParams } from "./bundle-api.js";
import type { ViewerRoutes } from "../../shared/viewer/routes/index.js";
import type { JsonRoute, RouteGet } from "./route-get.js";
import { ROUTES } from "./routes.js";
import type { BrowserRoute } from "./routes.js";

/** WINK's filter syntax: a comma-separated list; none or an empty list, no filter. */
const joined = (values: readonly string[] | undefined): string | undefined => (values === undefined || values.length === 0 ? undefined : values.join(","));

/** A route answering one member of a bundle as it is written (`/api/manifest`, `/api/config`…). */
type MemberRoute = BrowserRoute<JsonRoute & Pick<ViewerRoutes["bundleManifest"], "querystring" | "response">>;

const MEMBER_ROUTES: Readonly<Record<BundleMemberKind, MemberRoute>> = {
  manifest: ROUTES.bundleManifest,
  config: ROUTES.bundleConfig,
  metrics: ROUTES.bundleMetrics,
  error: ROUTES.bundleError,
  "run-context": ROUTES.bundleRunContext,
  eval: ROUTES.bundleEval,
  "prompt-overrides": ROUTES.bundlePromptOverrides,
};

export class HttpBundleApi implements BundleApi {
  constructor(private readonly get: RouteGet) {}

  list(): Promise<B.BundleListItemView[]> {
    return this.get(ROUTES.bundles, {});
  }

  groups(): Promise<B.BundleGroupView[]> {
    return this.get(ROUTES.bundleGroups, {});
  }

  summary(file: string): Promise<B.BundleSummaryView> {
    return this.get(ROUTES.bundleSummary, { file });
  }

  async meta(file: string): Promise<B.BundleMetaView> {
    return (await this.get(ROUTES.meta, { file })) as B.BundleMetaView;
  }

  logs(file: string, params: LogsParams = {}): Promise<B.LogPageView> {
    return this.get(
      ROUTES.bundleLogs,
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
    );
  }

  logFacets(file: string): Promise<B.LogFacetsView> {
    return this.get(ROUTES.bundleLogFacets, { file });
  }

  transcript(file: string, params: TranscriptParams = {}): Promise<B.TranscriptPageView> {
    return this.get(
      ROUTES.bundleTranscript,
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
    );
  }

  transcriptFacets(file: string): Promise<B.TranscriptFacetsView> {
    return this.get(ROUTES.bundleTranscriptFacets, { file });
  }

  environment(file: string): Promise<B.EnvironmentView> {
    return this.get(ROUTES.bundleEnvironment, { file });
  }

  request(file: string): Promise<B.BundleRequestView> {
    return this.get(ROUTES.bundleRequest, { file });
  }

  async member(file: string, kind: BundleMemberKind): Promise<unknown> {
    try {
      return await this.get(MEMBER_ROUTES[kind], { file });
    } catch (error) {
      // WINK's 404 for a member the bundle lacks, not for a bundle that is not there.
      if (error instanceof ApiError && error.status === 404 && /not found in bundle|No error in bundle/.test(error.detail)) return null;
      throw error;
    }
  }

  members(file: string): Promise<string[]> {
    return this.get(ROUTES.bundleMembers, { file });
  }

  memberFile(file: string, member: string): Promise<B.BundleFileView> {
    return this.get(ROUTES.bundleFile, { "*": member, file });
  }

  integrity(file: string): Promise<B.BundleIntegrityView> {
    return this.get(ROUTES.bundleIntegrity, { file });
  }

  compare(target: string, base?: string): Promise<B.BundleCompareView> {
    return this.get(ROUTES.bundleCompare, { target_file: target, base_file: base });
  }

  search(query: string, params: BundleSearchParams = {}): Promise<B.BundleSearchView> {
    return this.get(ROUTES.bundleSearch, { q: query, file: params.file, in: params.within, scope: joined(params.scopes), limit: params.limit, regex: params.regex === true ? "1" : undefined });
  }
}
