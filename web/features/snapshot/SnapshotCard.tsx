/**
 * The selected snapshot in one line, above the views: its run and session, the turn it holds
 * (and its archive), line and time, links to the parent session (at the snapshot that lists
 * this one) and to each child session; details (tags, schema, slices) one click away, so
 * laptop screens keep their height for the views. Validation problems are always shown.
 */
import { useState } from "react";
import type { RunResponse, SnapshotMetaResponse, SnapshotRef } from "../../api/api.js";
import { formatTimestamp, plural, shortId } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import { Link } from "../../components/Link.js";
import { snapshotPatch } from "../runs/run-links.js";
import { visibleText } from "../slices/json-model.js";

export function SnapshotCard({ snapshot, meta, run }: { snapshot: SnapshotRef; meta: SnapshotMetaResponse | undefined; run: RunResponse | undefined }) {
  const [open, setOpen] = useState(false);
  const session = run?.sessions.find((candidate) => candidate.snapshots.some((entry) => entry.line_number === snapshot.line));
  const entry = session?.snapshots.find((candidate) => candidate.line_number === snapshot.line);
  const parent = session?.spawned ?? null;
  const byId = new Map((run?.sessions ?? []).map((candidate) => [candidate.session_id, candidate]));
  const tags = Object.entries(meta?.tags ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  return (
    <section className="context-bar" aria-label="Selected snapshot" data-testid="snapshot-card">
      <div className="context-line">
        <span className="context-session" title={meta?.session_id}>
          <span className="context-label">Session</span>{" "}
          <strong>{session?.title ?? (meta === undefined ? "…" : shortId(meta.session_id))}</strong>{" "}
          <span className="mono muted small" data-testid="snapshot-session">
            {meta?.session_id ?? ""}
          </span>
        </span>
        <span className="context-where" data-testid="snapshot-where">
          {entry !== undefined ? <strong>{entry.label}</strong> : null} <span className="muted">line {snapshot.line}</span>
          {meta !== undefined ? <span className="muted mono small"> · {formatTimestamp(meta.created_at)}</span> : null}
          {entry?.latest === true ? <span className="tag tag-muted">latest</span> : null}
        </span>
        {parent !== null && parent.parent_line !== null ? (
          <Link to={snapshotPatch(snapshot.file, parent.parent_line)} className="pill pill-link" data-testid="context-parent">
            ↑ parent {byId.get(parent.parent_session_id)?.title ?? shortId(parent.parent_session_id)}
            {parent.turn !== null ? ` · turn ${parent.turn}` : ""}
          </Link>
        ) : null}
        {(session?.children ?? []).map((id) => {
          const child = byId.get(id);
          if (child === undefined) return null;
          return (
            <Link key={id} to={snapshotPatch(snapshot.file, child.latest_line)} className="pill pill-link" data-testid="context-child">
              ↓ {child.title ?? shortId(id)}
              {child.spawned?.turn != null ? ` · turn ${child.spawned.turn}` : ""}
            </Link>
          );
        })}
        <button type="button" className="mini-btn context-toggle" aria-expanded={open} aria-controls="snapshot-details" onClick={() => setOpen(!open)}>
          {open ? "Hide details" : "Details"}
        </button>
      </div>
      {open ? (
        <div className="context-details" id="snapshot-details">
          <span className="muted small">
            {snapshot.file} · schema {meta?.version ?? "…"} · {meta === undefined ? "…" : plural(meta.slices.length, "slice")}
          </span>
          <div className="pills">{tags.length === 0 ? <span className="muted small">No tags set</span> : tags.map(([key, value]) => <span key={key} className="pill">{visibleText(`${key}: ${value}`)}</span>)}</div>
        </div>
      ) : null}
      {meta?.validation_error != null ? (
        <div className="inline-warning" role="note">
          <Icon name="alert" size={14} /> {meta.validation_error}
        </div>
      ) : null}
    </section>
  );
}
