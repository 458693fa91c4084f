/**
 * The facet filters of the logs and transcript panels (as the URL holds them, see
 * `FacetFilter`) turned into the API's include/exclude lists, and the one click that
 * changes them: a value is kept (include), left out (exclude) or neither.
 */
import type { LogsParams, TranscriptParams } from "../../api/bundle-api.js";
import type { FacetFilter } from "../../state/view-state.js";

export type FacetState = "include" | "exclude" | null;

export const LOG_FACETS = ["level", "logger", "event"] as const;
export const TRANSCRIPT_FACETS = ["entry_type", "source"] as const;

function values(filters: readonly FacetFilter[], facet: string, include: boolean): string[] | undefined {
  const found = filters.filter((filter) => filter.facet === facet && filter.include === include).map((filter) => filter.value);
  return found.length === 0 ? undefined : found;
}

/** The logs query of the filters (`undefined` lists left out, so equal filters give equal query keys). */
export function logsParams(filters: readonly FacetFilter[], search: string | undefined): LogsParams {
  const params: Record<string, unknown> = {
    level: values(filters, "level", true),
    exclude_level: values(filters, "level", false),
    logger: values(filters, "logger", true),
    exclude_logger: values(filters, "logger", false),
    event: values(filters, "event", true),
    exclude_event: values(filters, "event", false),
    search: search === undefined || search === "" ? undefined : search,
  };
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined)) as LogsParams;
}

export function transcriptParams(filters: readonly FacetFilter[], search: string | undefined): TranscriptParams {
  const params: Record<string, unknown> = {
    entry_type: values(filters, "entry_type", true),
    exclude_entry_type: values(filters, "entry_type", false),
    source: values(filters, "source", true),
    exclude_source: values(filters, "source", false),
    search: search === undefined || search === "" ? undefined : search,
  };
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined)) as TranscriptParams;
}

export function facetState(filters: readonly FacetFilter[], facet: string, value: string): FacetState {
  const found = filters.find((filter) => filter.facet === facet && filter.value === value);
  return found === undefined ? null : found.include ? "include" : "exclude";
}

/** The filters with `facet: value` set to `state` (null: no filter on it). */
export function withFacet(filters: readonly FacetFilter[], facet: string, value: string, state: FacetState): FacetFilter[] {
  const rest = filters.filter((filter) => !(filter.facet === facet && filter.value === value));
  return state === null ? rest : [...rest, { facet, value, include: state === "include" }];
}

/**
 * True when tool results can be drawn under their tool use: both entry types are shown and
 * no search can keep one without the other.
 */
export function nestsToolResults(filters: readonly FacetFilter[], search: string | undefined): boolean {
  if (search !== undefined && search !== "") return false;
  const shown = (type: string) => {
    const state = facetState(filters, "entry_type", type);
    if (state === "exclude") return false;
    const includes = filters.some((filter) => filter.facet === "entry_type" && filter.include);
    return !includes || state === "include";
  };
  return shown("tool_use") && shown("tool_result");
}
