/** The pieces of WINK's paged and faceted answers that logs and transcript share. */
import type { FacetCountView } from "./types.js";

/** One page of matching rows: `limit` null (WINK's default) gives every row from `offset`. */
export function pageOf<T>(found: readonly number[], offset: number, limit: number | null, row: (index: number) => T): { entries: T[]; total: number; offset: number; limit: number | null } {
  const end = limit === null ? found.length : Math.min(found.length, offset + limit);
  const entries: T[] = [];
  for (let k = offset; k < end; k++) entries.push(row(found[k] as number));
  return { entries, total: found.length, offset, limit };
}

/** Facet values most frequent first (ties by name, so answers are stable). */
export function sortFacets(facets: FacetCountView[]): FacetCountView[] {
  return facets.sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
