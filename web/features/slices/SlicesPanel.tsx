/** The selected snapshot's slices, state and events apart, with a filter (sidebar). */
import { useMemo, useState } from "react";
import type { SnapshotMetaResponse } from "../../api/api.js";
import { plural } from "../../components/format.js";
import { useNavigate } from "../../state/url-store.js";

type Slice = SnapshotMetaResponse["slices"][number];

export function SlicesPanel({ meta, activeSlice }: { meta: SnapshotMetaResponse | undefined; activeSlice: string | undefined }) {
  const [filter, setFilter] = useState("");
  const slices = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    return (meta?.slices ?? []).filter((slice) => needle === "" || `${slice.display_name} ${slice.item_display_name} ${slice.slice_type}`.toLowerCase().includes(needle));
  }, [meta, filter]);
  const state = slices.filter((slice) => slice.kind === "state");
  const events = slices.filter((slice) => slice.kind === "event");
  return (
    <section className="panel" aria-labelledby="slices-heading">
      <header className="panel-header">
        <h2 id="slices-heading">Slices</h2>
        <input type="search" className="panel-filter" placeholder="Filter slices" value={filter} onChange={(event) => setFilter(event.target.value)} aria-label="Filter slices" />
      </header>
      <SliceGroup title="State slices" slices={state} total={meta?.slices.filter((slice) => slice.kind === "state").length ?? 0} active={activeSlice} />
      <SliceGroup title="Event slices" slices={events} total={meta?.slices.filter((slice) => slice.kind === "event").length ?? 0} active={activeSlice} />
    </section>
  );
}

function SliceGroup({ title, slices, total, active }: { title: string; slices: Slice[]; total: number; active: string | undefined }) {
  const navigate = useNavigate();
  return (
    <div className="slice-group">
      <div className="slice-group-title">
        <span>{title}</span>
        <span className="pill pill-outline">{total} total</span>
      </div>
      {slices.length === 0 ? (
        <div className="muted small pad">No {title.toLowerCase()} match</div>
      ) : (
        <ul className="slice-list">
          {slices.map((slice) => (
            <li key={slice.slice_type}>
              <button
                type="button"
                className={`slice-row${slice.slice_type === active ? " is-active" : ""}`}
                aria-current={slice.slice_type === active ? "true" : undefined}
                onClick={() => navigate({ view: "slices", slice: slice.slice_type, item: undefined })}
                title={slice.slice_type}
                data-testid="slice-row"
              >
                <span className="slice-name">{slice.display_name}</span>
                <span className="slice-meta">
                  {slice.item_display_name} · {plural(slice.count, "item")}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
