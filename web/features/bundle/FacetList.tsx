/**
 * One facet of the logs or transcript panel (levels, loggers, events, entry types…): every
 * value with its count, most frequent first. Clicking a value keeps only it (with any other
 * kept values); its ⊘ button leaves it out. Both are toggle buttons, so the state is
 * announced and reachable by keyboard.
 */
import type { UseQueryResult } from "@tanstack/react-query";
import { useState } from "react";
import type { ReactNode } from "react";
import { ErrorState, Spinner } from "../../components/feedback.js";
import type { FacetFilter } from "../../state/view-state.js";
import { facetState, withFacet } from "./facet-filters.js";
import { formatCount } from "../../components/format.js";

const SHOWN = 8;

export interface FacetListProps {
  readonly facet: string;
  readonly title: string;
  readonly values: readonly { name: string; count: number }[];
  readonly filters: readonly FacetFilter[];
  readonly onChange: (filters: FacetFilter[]) => void;
  /** How a value is shown when its full name is too long (the full name stays in the title). */
  readonly display?: (name: string) => string;
}

export function FacetList({ facet, title, values, filters, onChange, display = (name) => name }: FacetListProps) {
  const [all, setAll] = useState(false);
  const active = values.filter((value) => facetState(filters, facet, value.name) !== null);
  // Values with a filter on them stay visible when the list is cut.
  const shown = all ? values : [...values.slice(0, SHOWN), ...active.filter((value) => values.indexOf(value) >= SHOWN)];
  const headingId = `facet-${facet}`;
  return (
    <section className="facet" aria-labelledby={headingId} data-testid={`facet-${facet}`}>
      <h3 id={headingId} className="facet-title">
        {title}
      </h3>
      {values.length === 0 ? <p className="muted small">none</p> : null}
      <ul className="facet-values">
        {shown.map((value) => {
          const state = facetState(filters, facet, value.name);
          return (
            <li key={value.name} className={`facet-value${state === null ? "" : ` is-${state}`}`}>
              <button
                type="button"
                className="facet-keep"
                aria-pressed={state === "include"}
                title={state === "include" ? `Show every ${title.toLowerCase()} again` : `Show only ${value.name}`}
                onClick={() => onChange(withFacet(filters, facet, value.name, state === "include" ? null : "include"))}
                data-testid="facet-keep"
                data-value={value.name}
              >
                <span className="facet-name" title={value.name}>
                  {display(value.name)}
                </span>
                <span className="facet-count">{formatCount(value.count)}</span>
              </button>
              <button
                type="button"
                className="facet-drop"
                aria-pressed={state === "exclude"}
                aria-label={`Leave out ${value.name}`}
                title={state === "exclude" ? `Show ${value.name} again` : `Leave out ${value.name}`}
                onClick={() => onChange(withFacet(filters, facet, value.name, state === "exclude" ? null : "exclude"))}
                data-testid="facet-drop"
                data-value={value.name}
              >
                ⊘
              </button>
            </li>
          );
        })}
      </ul>
      {values.length > SHOWN ? (
        <button type="button" className="mini-btn mini-btn-quiet" onClick={() => setAll(!all)} aria-expanded={all}>
          {all ? "Fewer" : `All ${values.length}`}
        </button>
      ) : null}
    </section>
  );
}

/** The facets column of a panel: its facet lists once the counts are in. */
export function FacetsAside<T>({ label, counts, errorTitle, children }: { label: string; counts: UseQueryResult<T>; errorTitle: string; children: (data: T) => ReactNode }) {
  return (
    <aside className="card facets" aria-label={label}>
      {counts.isPending ? <Spinner label="Counting…" /> : counts.isError ? <ErrorState error={counts.error} title={errorTitle} /> : children(counts.data)}
    </aside>
  );
}
