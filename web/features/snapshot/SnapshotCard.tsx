/**
 * The selected snapshot above the views: a line with its session, the turn it holds (and its
 * archive), line and time, links to the parent session (at the snapshot that lists this one)
 * and to each child session; and a line of its full identifiers as selectable text (session
 * id, with a copy button; the file when not named after it; schema; every tag), as WINK's viewer shows them: one
 * "Details" click away, they were what a reviewer pasted into a search or a bug report.
 * Validation problems are always shown.
 */
import type { RunResponse, SnapshotMetaResponse, SnapshotRef } from "../../api/api.js";
import { copyText } from "../../components/clipboard.js";
import { formatTimestamp, plural, shortId } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import { Link } from "../../components/Link.js";
import { snapshotPatch } from "../../state/run-links.js";
import { showToast } from "../../state/toasts.js";
import { visibleText } from "../../components/json-model.js";

/** True when `file` is `<sessionId>.jsonl` (or `.json`) at the top of the served directory, as WINK writes it. */
function namedAfter(file: string, sessionId: string): boolean {
  return file === `${sessionId}.jsonl` || file === `${sessionId}.json`;
}

export function SnapshotCard({ snapshot, meta, run }: { snapshot: SnapshotRef; meta: SnapshotMetaResponse | undefined; run: RunResponse | undefined }) {
  const session = run?.sessions.find((candidate) => candidate.snapshots.some((entry) => entry.line_number === snapshot.line));
  const entry = session?.snapshots.find((candidate) => candidate.line_number === snapshot.line);
  const parent = session?.spawned ?? null;
  const byId = new Map((run?.sessions ?? []).map((candidate) => [candidate.session_id, candidate]));
  // A `session_id` tag that repeats the id shown beside it is left out.
  const tags = Object.entries(meta?.tags ?? {})
    .filter(([key, value]) => !(key === "session_id" && value === meta?.session_id))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return (
    <section className="context-bar" aria-label="Selected snapshot" data-testid="snapshot-card">
      <div className="context-line">
        <span className="context-session" title={meta?.session_id}>
          <span className="context-label">Session</span> <strong>{session?.title ?? (meta === undefined ? "…" : shortId(meta.session_id))}</strong>
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
      </div>
      <div className="context-ids small" data-testid="snapshot-ids">
        <span className="context-id">
          <span className="muted">session_id</span>{" "}
          <span className="mono selectable" data-testid="snapshot-session">
            {meta?.session_id ?? ""}
          </span>
          {meta !== undefined ? (
            <button
              type="button"
              className="icon-btn icon-btn-small"
              title="Copy the session id"
              aria-label="Copy the session id"
              onClick={() => void copyText(meta.session_id).then(() => showToast("Copied the session id"), (error: unknown) => showToast(`Copy failed: ${error instanceof Error ? error.message : String(error)}`, "error"))}
            >
              <Icon name="copy" size={12} />
            </button>
          ) : null}
        </span>
        {/* WINK names a session's file after it: the file is said only when it says more than the id. */}
        {meta !== undefined && !namedAfter(snapshot.file, meta.session_id) ? (
          <span className="context-id">
            <span className="muted">file</span> <span className="mono selectable">{snapshot.file}</span>
          </span>
        ) : null}
        <span className="context-id muted" title={meta === undefined ? undefined : `${snapshot.file} · ${plural(meta.slices.length, "slice")}`}>
          schema {meta?.version ?? "…"}
        </span>
        {tags.length === 0 ? (
          <span className="muted">no tags</span>
        ) : (
          tags.map(([key, value]) => (
            <span key={key} className="pill mono selectable" data-testid="snapshot-tag">
              {visibleText(`${key}: ${value}`)}
            </span>
          ))
        )}
      </div>
      {meta?.validation_error != null ? (
        <div className="inline-warning" role="note">
          <Icon name="alert" size={14} /> {meta.validation_error}
        </div>
      ) : null}
    </section>
  );
}
