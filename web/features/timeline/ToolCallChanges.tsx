/**
 * What the per-tool-call undo store says a tool call changed (only where the timeline has
 * `changes`, i.e. a served session file with its store next to it): the marker on the call's
 * row, the panel listing its files (A/M/D badges, undone or not), and the diff of one file
 * between its pre-image and its post-state, drawn with the compare view's diff components.
 */
import { Suspense, lazy, useRef } from "react";
import type { SnapshotRef, ToolCallChangesResponse, ToolCallFileDiffResponse, ToolCallFileResponse } from "../../api/api.js";
import { EmptyState, ErrorState, Kbd, Spinner } from "../../components/feedback.js";
import { formatBytes, formatTimestamp, plural } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import { Modal } from "../../components/Modal.js";
import type { MergeDiffHandle } from "../../editor/MergeDiff.js";
import { useToolCallDiff } from "../../queries/hooks.js";
import { setPreference, usePreferences } from "../../state/preferences.js";
import { useKeymap } from "../../state/shortcuts.js";
import { DiffHeader, LayoutToggle, badgeClass } from "../../components/DiffHeader.js";
import { HunkList } from "../../components/HunkList.js";
import { visibleText } from "../../components/json-model.js";

const MergeDiff = lazy(() => import("../../editor/MergeDiff.js").then((module) => ({ default: module.MergeDiff })));

const LETTERS: Readonly<Record<string, string>> = { added: "A", modified: "M", deleted: "D", "type-changed": "T", unknown: "?", unchanged: "=" };

/** The one-letter badge of a change kind (A, M, D; T for a file that became a directory or back; ? when the post-state is unknown). */
export function changeLetter(change: string): string {
  return LETTERS[change] ?? "?";
}

const CHANGE_WORDS: Readonly<Record<string, string>> = { added: "added", modified: "modified", deleted: "deleted", "type-changed": "changed type", unknown: "post-state unknown", unchanged: "unchanged" };

function undoneText(changes: ToolCallChangesResponse, snapshotCreatedAt: string | null): string {
  if (changes.restored_at === null) return "Undone";
  const later = snapshotCreatedAt !== null && Date.parse(changes.restored_at) > Date.parse(snapshotCreatedAt);
  return `Undone at ${formatTimestamp(changes.restored_at)}${later ? " (after this snapshot)" : ""}`;
}

function sizeText(file: ToolCallFileResponse): string {
  if (file.before === "directory" || file.after === "directory") return "directory";
  const size = (value: number | null) => (value === null ? "?" : formatBytes(value));
  if (file.before === "absent") return size(file.after_size);
  if (file.after === "absent" || file.after === null) return size(file.before_size);
  return `${size(file.before_size)} → ${size(file.after_size)}`;
}

/** On a tool call's timeline row: how many files it changed, and whether it was undone. */
export function ChangesMarker({ changes }: { changes: ToolCallChangesResponse }) {
  if (changes.files.length === 0 && !changes.undone) return null;
  const files = changes.files.filter((file) => file.before !== "directory" && file.after !== "directory");
  return (
    <>
      {changes.files.length > 0 ? (
        <span className="event-changes" data-testid="event-changes" title={changes.files.map((file) => `${changeLetter(file.change)} ${file.path}`).join("\n")}>
          <Icon name="file" size={12} />
          {files.length > 0 ? plural(files.length, "file") : plural(changes.files.length, "directory", "directories")}
        </span>
      ) : null}
      {changes.undone ? (
        <span className="tag tag-warn" data-testid="undone-marker" title={changes.restored_at === null ? "Undone" : `Undone at ${formatTimestamp(changes.restored_at)}`}>
          undone
        </span>
      ) : null}
    </>
  );
}

/** Below the events: the files the selected tool call changed; each opens its diff. */
export function ToolCallChangesPanel({ changes, snapshotCreatedAt, activePath, onOpen }: { changes: ToolCallChangesResponse; snapshotCreatedAt: string | null; activePath: string | undefined; onOpen: (path: string) => void }) {
  return (
    <section className="tool-call-changes" aria-label="Files the tool call changed" data-testid="tool-call-changes">
      <header className="tool-call-changes-header">
        <h3>
          Changed files <span className="muted small mono">{visibleText(changes.call_id)}</span>
        </h3>
        {changes.undone ? (
          <span className="tag tag-warn" data-testid="undone-marker">
            {undoneText(changes, snapshotCreatedAt)}
          </span>
        ) : null}
        {changes.files.length > 0 ? (
          <span className="muted small">
            <Kbd>C</Kbd> diff
          </span>
        ) : null}
      </header>
      {changes.files.length === 0 ? (
        <p className="muted small">The undo store recorded this call: it changed no file.</p>
      ) : (
        <ul className="change-items" data-testid="tool-call-files">
          {changes.files.map((file) => (
            <li key={file.path}>
              <button
                type="button"
                className={`change-item${file.path === activePath ? " is-active" : ""}`}
                onClick={() => onOpen(file.path)}
                title={`${file.path}: ${CHANGE_WORDS[file.change] ?? file.change}`}
                data-testid="tool-call-file"
                data-path={file.path}
              >
                <span className={`change-badge ${badgeClass(file.change)}`}>{changeLetter(file.change)}</span>
                <Icon name={file.before === "directory" || file.after === "directory" ? "folder" : "file"} size={12} />
                <span className="change-path mono">{visibleText(file.path)}</span>
                <span className="muted small">{sizeText(file)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function afterSourceText(diff: ToolCallFileDiffResponse): string {
  switch (diff.after_source) {
    case "recorded":
      return "post-image recorded when the call finished";
    case "next_call":
      return "post-state from the next call's pre-image";
    case "workspace":
      return diff.after_snapshot === null ? "post-state from a later snapshot" : `post-state from the workspace at line ${diff.after_snapshot.line_number}`;
    default:
      return "post-state unknown";
  }
}

function sideSize(side: ToolCallFileDiffResponse["before"] | null): string {
  if (side === null) return "?";
  if (side.kind === "absent") return "—";
  if (side.kind === "directory") return "directory";
  return side.size_bytes === null ? "?" : formatBytes(side.size_bytes);
}

/** A file's whole text for the merge view ("" when the path was absent), or null when only hunks can be shown. */
function wholeText(side: ToolCallFileDiffResponse["before"] | null): string | null {
  if (side === null) return null;
  if (side.kind === "absent") return "";
  return side.kind === "file" ? side.text : null;
}

/** The diff of one file a tool call changed, pre-image against post-state; J/K step through the call's files. */
export function ToolCallDiffModal({ snapshot, changes, toolName, path, onOpen, onClose }: { snapshot: SnapshotRef; changes: ToolCallChangesResponse; toolName: string; path: string; onOpen: (path: string) => void; onClose: () => void }) {
  const layout = usePreferences().diffLayout;
  const handle = useRef<MergeDiffHandle>(null);
  const diff = useToolCallDiff(snapshot, changes.call_id, path);
  const step = (delta: number) => {
    const index = changes.files.findIndex((file) => file.path === path);
    const next = changes.files[Math.min(changes.files.length - 1, Math.max(0, index + delta))];
    if (next !== undefined && next.path !== path) onOpen(next.path);
  };
  const setLayout = (next: "split" | "unified") => setPreference("diffLayout", next);
  useKeymap({
    j: () => step(1),
    k: () => step(-1),
    ".": () => handle.current?.next(),
    ",": () => handle.current?.previous(),
    u: () => setLayout(layout === "split" ? "unified" : "split"),
  });

  let body;
  if (diff.isPending) body = <Spinner label="Computing the diff…" />;
  else if (diff.isError) body = <ErrorState error={diff.error} title={`Could not diff ${path}`} onRetry={() => void diff.refetch()} />;
  else {
    const data = diff.data;
    const base = wholeText(data.before);
    const target = wholeText(data.after);
    body = (
      <>
        <DiffHeader title={path} status={data.change} facts={`${sideSize(data.before)} → ${sideSize(data.after)} · ${afterSourceText(data)}`}>
          {data.undone ? <span className="tag tag-warn">undone</span> : null}
          <LayoutToggle layout={layout} onChange={setLayout} />
        </DiffHeader>
        {data.note !== null && data.hunks.length > 0 ? (
          <p className="diff-note small" data-testid="tool-call-diff-note">
            {data.note}
          </p>
        ) : null}
        {data.hunks.length === 0 ? (
          <EmptyState title={data.change === "unknown" ? "Post-state unknown" : data.binary ? "Binary file" : "No line diff"}>{data.note ?? "The contents differ only in ways a line diff cannot show."}</EmptyState>
        ) : base !== null && target !== null ? (
          <Suspense fallback={<Spinner label="Loading the diff viewer…" />}>
            <MergeDiff path={path} base={base} target={target} hunks={data.hunks} layout={layout} handle={handle} />
          </Suspense>
        ) : (
          <HunkList hunks={data.hunks} layout={layout} handle={handle} label={`Diff of ${path}`} />
        )}
      </>
    );
  }
  return (
    <Modal title={`${toolName} · ${changes.call_id}`} onClose={onClose} className="modal-diff">
      <div className="tool-call-diff" data-testid="tool-call-diff">
        {body}
      </div>
    </Modal>
  );
}
