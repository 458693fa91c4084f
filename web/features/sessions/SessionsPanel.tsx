/**
 * Sessions: every session file of the directory with its session tree (children nested
 * under their parent), line errors and validation problems shown, not hidden.
 */
import { useState } from "react";
import type { SessionFileResponse, SessionNodeResponse, SnapshotRef } from "../../api/api.js";
import { sameRef } from "../../api/api.js";
import { EmptyState, ErrorState, Spinner } from "../../components/feedback.js";
import { formatBytes, formatTimestamp, plural } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import { useFiles } from "../../queries/hooks.js";
import { selectSnapshotPatch } from "../../state/view-state.js";
import { useNavigate } from "../../state/url-store.js";

export function SessionsPanel({ selected }: { selected: SnapshotRef | null }) {
  const files = useFiles();
  return (
    <section className="panel" aria-labelledby="sessions-heading">
      <header className="panel-header">
        <h2 id="sessions-heading">Sessions</h2>
        <span className="panel-sub">{files.data === undefined ? "File → session tree" : `${files.data.root} · ${plural(files.data.files.length, "file")}`}</span>
      </header>
      {files.isPending ? (
        <Spinner label="Reading session files…" />
      ) : files.isError ? (
        <ErrorState error={files.error} title="Could not list the session files" onRetry={() => void files.refetch()} />
      ) : files.data.files.length === 0 ? (
        <EmptyState title="No sessions captured yet." />
      ) : (
        <div className="session-files" role="tree" aria-label="Session files">
          {files.data.files.map((file) => (
            <SessionFileGroup key={file.path} file={file} selected={selected} />
          ))}
          {files.data.indexing ? <div className="muted small pad">Indexing…</div> : null}
        </div>
      )}
    </section>
  );
}

function SessionFileGroup({ file, selected }: { file: SessionFileResponse; selected: SnapshotRef | null }) {
  const holdsSelection = selected?.file === file.path;
  const [open, setOpen] = useState(true);
  const [showErrors, setShowErrors] = useState(false);
  return (
    <div className={`session-file${holdsSelection ? " is-current" : ""}`} role="treeitem" aria-expanded={open} aria-selected={false}>
      <button type="button" className="session-file-header" onClick={() => setOpen(!open)} title={`${file.path} · ${formatBytes(file.size_bytes)}`}>
        <Icon name={open ? "chevronDown" : "chevronRight"} size={14} />
        <span className="session-file-name">{file.name}</span>
        <span className="pill">{plural(file.snapshot_count, "session")}</span>
      </button>
      {open ? (
        <div role="group">
          {file.status === "pending" ? <div className="muted small pad">Indexing…</div> : null}
          {file.error !== null ? <div className="inline-error">{file.error}</div> : null}
          {file.errors.length > 0 ? (
            <div className="line-errors">
              <button type="button" className="line-errors-toggle" onClick={() => setShowErrors(!showErrors)} aria-expanded={showErrors}>
                <Icon name="alert" size={14} /> {plural(file.errors.length, "line")} did not load
              </button>
              {showErrors ? (
                <ul className="line-error-list">
                  {file.errors.map((error) => (
                    <li key={`${error.line_number}-${error.kind}`}>
                      <span className="mono">line {error.line_number}</span> <span className="tag tag-muted">{error.kind}</span> {error.reason}
                    </li>
                  ))}
                </ul>
              ) : null}
            </div>
          ) : null}
          {file.duplicate_session_ids.length > 0 ? (
            <div className="muted small pad" title={file.duplicate_session_ids.join("\n")}>
              {plural(file.duplicate_session_ids.length, "session")} with several snapshot lines (one row per line)
            </div>
          ) : null}
          <ul className="session-tree">
            {file.sessions.map((node) => (
              <SessionRow key={node.line_number} file={file} node={node} depth={0} selected={selected} />
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

function SessionRow({ file, node, depth, selected }: { file: SessionFileResponse; node: SessionNodeResponse; depth: number; selected: SnapshotRef | null }) {
  const navigate = useNavigate();
  const ref = { file: file.path, line: node.line_number };
  const active = sameRef(ref, selected);
  const agent = node.tags.agent ?? node.tags.app;
  return (
    <li role="none">
      <button
        type="button"
        role="treeitem"
        aria-selected={active}
        aria-level={depth + 1}
        className={`session-row${active ? " is-active" : ""}`}
        style={{ paddingLeft: `${0.75 + depth * 1}rem` }}
        onClick={() => navigate(selectSnapshotPatch(ref))}
        data-testid="session-row"
        data-session={node.session_id}
      >
        {depth > 0 ? <span className="tree-elbow" aria-hidden="true" /> : null}
        <span className="session-row-main">
          <span className="session-id mono">{node.session_id}</span>
          <span className="session-meta">
            line {node.line_number} · {formatTimestamp(node.created_at)}
            {agent === undefined ? null : <> · {agent}</>}
            {node.event_count > 0 ? <> · {plural(node.event_count, "event")}</> : null}
          </span>
          {node.validation_error !== null ? (
            <span className="session-warning" title={node.validation_error}>
              <Icon name="alert" size={12} /> {node.validation_error}
            </span>
          ) : null}
          {node.missing_children.length > 0 ? (
            <span className="session-note" title={node.missing_children.join("\n")}>
              {plural(node.missing_children.length, "child session")} not in this file
            </span>
          ) : null}
          {node.missing_parent_id !== null ? <span className="session-note">parent {node.missing_parent_id} not in this file</span> : null}
        </span>
      </button>
      {node.children.length > 0 ? (
        <ul className="session-tree" role="group">
          {node.children.map((child) => (
            <SessionRow key={child.line_number} file={file} node={child} depth={depth + 1} selected={selected} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}
