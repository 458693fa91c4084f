/**
 * The bundle routes' requests read into the bundle reader's queries, and what a member route
 * answers when the bundle lacks the member: the server's handlers and the web app's
 * `LocalApi` both read a request through these, so the two answer it alike. Browser-safe and
 * schema-free (types only from the bundle reader): `LocalApi` imports it.
 */
import type { LogQuery, TranscriptQuery } from "../../debug-bundle/index.js";
import { readLists } from "./route-url.js";
import { ROUTE_TABLE } from "./table.js";

/** The filters of a `/api/logs` request, its comma lists given as strings (off the wire) or lists (in the page). */
export interface LogsRequest {
  readonly offset?: number | undefined;
  readonly limit?: number | undefined;
  readonly level?: string | readonly string[] | undefined;
  readonly logger?: string | readonly string[] | undefined;
  readonly event?: string | readonly string[] | undefined;
  readonly exclude_level?: string | readonly string[] | undefined;
  readonly exclude_logger?: string | readonly string[] | undefined;
  readonly exclude_event?: string | readonly string[] | undefined;
  readonly search?: string | undefined;
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  readonly at?: string | undefined;
  readonly at_line?: number | undefined;
}

/** The filters of a `/api/transcript` request, as `LogsRequest`. */
export interface TranscriptRequest {
  readonly offset?: number | undefined;
  readonly limit?: number | undefined;
  readonly source?: string | readonly string[] | undefined;
  readonly entry_type?: string | readonly string[] | undefined;
  readonly exclude_source?: string | readonly string[] | undefined;
  readonly exclude_entry_type?: string | readonly string[] | undefined;
  readonly search?: string | undefined;
  readonly at_rowid?: number | undefined;
}

/** A `/api/logs` request as the log reader's query (omitted `limit`: every matching record, WINK's default). */
export function logQueryOf(request: LogsRequest): LogQuery {
  const query = readLists(ROUTE_TABLE.bundleLogs, request);
  return {
    ...(query.offset === undefined ? {} : { offset: query.offset }),
    limit: query.limit ?? null,
    levels: query.level,
    excludeLevels: query.exclude_level,
    loggers: query.logger,
    excludeLoggers: query.exclude_logger,
    events: query.event,
    excludeEvents: query.exclude_event,
    ...(query.search === undefined ? {} : { search: query.search }),
    since: query.since,
    until: query.until,
    at: query.at,
    ...(query.at_line === undefined ? {} : { atLine: query.at_line }),
  };
}

/** A `/api/transcript` request as the transcript reader's query. */
export function transcriptQueryOf(request: TranscriptRequest): TranscriptQuery {
  const query = readLists(ROUTE_TABLE.bundleTranscript, request);
  return {
    ...(query.offset === undefined ? {} : { offset: query.offset }),
    limit: query.limit ?? null,
    sources: query.source,
    excludeSources: query.exclude_source,
    entryTypes: query.entry_type,
    excludeEntryTypes: query.exclude_entry_type,
    ...(query.search === undefined ? {} : { search: query.search }),
    ...(query.at_rowid === undefined ? {} : { atRowid: query.at_rowid }),
  };
}

/** The search scopes of a `/api/bundles/search` request; none: every scope. */
export function searchScopesOf(request: { readonly scope?: string | readonly string[] | undefined }): string[] | undefined {
  return readLists(ROUTE_TABLE.bundleSearch, request).scope;
}

/** The member routes' 404 detail when the bundle has no such member (WINK's words; the manifest is always there). */
export const MISSING_MEMBER = {
  bundleConfig: "Config not found in bundle",
  bundleMetrics: "Metrics not found in bundle",
  bundleError: "No error in bundle",
  bundleRunContext: "Run context not found in bundle",
  bundleEval: "Eval not found in bundle",
  bundlePromptOverrides: "Prompt overrides not found in bundle",
} as const;

/** True when a 404's detail is a member route's "the bundle has none", not a bundle that is not there. */
export const isMissingMember = (detail: string): boolean => (Object.values(MISSING_MEMBER) as string[]).includes(detail);
