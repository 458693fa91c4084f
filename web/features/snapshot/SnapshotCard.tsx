/**
 * The selected snapshot: session, where it is, when, schema version, slice count, tags,
 * parent and children, and its validation problems (shown, unlike the original).
 */
import type { SnapshotMetaResponse, SnapshotRef } from "../../api/api.js";
import { visibleText } from "../slices/json-model.js";
import { formatTimestamp, plural } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import { useNavigate } from "../../state/url-store.js";
import { selectSnapshotPatch } from "../../state/view-state.js";
import type { SnapshotEntry } from "../sessions/snapshot-list.js";

export function SnapshotCard({ snapshot, meta, entries }: { snapshot: SnapshotRef; meta: SnapshotMetaResponse | undefined; entries: readonly SnapshotEntry[] }) {
  const navigate = useNavigate();
  const parent = meta?.parent_id == null ? undefined : entries.find((entry) => entry.file === snapshot.file && entry.sessionId === meta.parent_id);
  const tags = Object.entries(meta?.tags ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  return (
    <section className="card snapshot-card" aria-label="Selected snapshot" data-testid="snapshot-card">
      <div className="snapshot-facts">
        <div className="fact fact-wide">
          <span className="fact-label">Session</span>
          <span className="fact-value mono" data-testid="snapshot-session">
            {meta?.session_id ?? "…"}
          </span>
        </div>
        <div className="fact">
          <span className="fact-label">Where</span>
          <span className="fact-value mono" title={snapshot.file}>
            {snapshot.file.slice(snapshot.file.lastIndexOf("/") + 1)} · line {snapshot.line}
          </span>
        </div>
        <div className="fact">
          <span className="fact-label">Created at</span>
          <span className="fact-value mono">{meta === undefined ? "…" : formatTimestamp(meta.created_at)}</span>
        </div>
        <div className="fact">
          <span className="fact-label">Schema</span>
          <span className="fact-value">{meta?.version ?? "…"}</span>
        </div>
        <div className="fact">
          <span className="fact-label">Slices</span>
          <span className="fact-value">{meta === undefined ? "…" : plural(meta.slices.length, "slice")}</span>
        </div>
      </div>
      <div className="pills">
        {tags.length === 0 ? <span className="muted small">No tags set</span> : tags.map(([key, value]) => <span key={key} className="pill">{visibleText(`${key}: ${value}`)}</span>)}
        {parent !== undefined ? (
          <button type="button" className="pill pill-link" onClick={() => navigate(selectSnapshotPatch(parent))}>
            ↑ parent {parent.sessionId.slice(0, 8)}
          </button>
        ) : null}
        {meta !== undefined && meta.children_ids.length > 0 ? <span className="pill pill-outline">{plural(meta.children_ids.length, "child", "children")}</span> : null}
      </div>
      {meta?.validation_error != null ? (
        <div className="inline-warning" role="note">
          <Icon name="alert" size={14} /> {meta.validation_error}
        </div>
      ) : null}
    </section>
  );
}
