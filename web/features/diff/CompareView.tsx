/**
 * Compare any two snapshots (one session or across sessions and files): what changed in
 * the workspace (from sizes and CRCs), which slices changed, and per file a side-by-side
 * or unified diff; per slice its item changes and JSON diff. J/K step through changed
 * files, N/Shift+N through changes in the open diff, U switches the layout.
 */
import { Suspense, lazy, useEffect, useMemo, useRef } from "react";
import type { RefObject } from "react";
import type { SnapshotDiffResponse, SnapshotRef } from "../../api/api.js";
import { sameRef } from "../../api/api.js";
import { EmptyState, ErrorState, Spinner } from "../../components/feedback.js";
import { formatBytes, formatTimestamp, plural } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import type { MergeDiffHandle } from "../../editor/MergeDiff.js";
import { useDiff, useFileContent, useFileDiff, useFiles, useSliceDiff } from "../../queries/hooks.js";
import { setPreference, usePreferences } from "../../state/preferences.js";
import { useKeymap } from "../../state/shortcuts.js";
import { useNavigate } from "../../state/url-store.js";
import { flattenSnapshots, snapshotLabel } from "../sessions/snapshot-list.js";
import type { SnapshotEntry } from "../sessions/snapshot-list.js";
import { defaultBase } from "./default-base.js";
import { DiffHeader, LayoutToggle, badgeClass } from "./DiffHeader.js";
import { HunkList } from "./HunkList.js";

const MergeDiff = lazy(() => import("../../editor/MergeDiff.js").then((module) => ({ default: module.MergeDiff })));

/** Files larger than this are diffed from hunks only (no full texts in the page). */
const FULL_TEXT_LIMIT = 4 * 1024 * 1024;

export interface CompareViewProps {
  readonly target: SnapshotRef;
  readonly base: SnapshotRef | undefined;
  readonly path: string | undefined;
  readonly slice: string | undefined;
  readonly layout: "split" | "unified" | undefined;
}

export function CompareView({ target, base, path, slice, layout }: CompareViewProps) {
  const navigate = useNavigate();
  const files = useFiles();
  const preferences = usePreferences();
  const entries = useMemo(() => flattenSnapshots(files.data), [files.data]);
  const suggested = useMemo(() => (base === undefined ? defaultBase(entries, target) : null), [entries, target, base]);
  useEffect(() => {
    if (base === undefined && suggested !== null) navigate({ base: suggested }, { replace: true });
  }, [base, suggested, navigate]);
  const effectiveLayout = layout ?? preferences.diffLayout;
  const diff = useDiff(base ?? null, target);
  const handle = useRef<MergeDiffHandle>(null);

  const changes = diff.data?.files.changes ?? [];
  const changedSlices = (diff.data?.slices ?? []).filter((entry) => entry.status !== "unchanged");
  useEffect(() => {
    // Open the first changed file (or slice) when nothing is picked yet.
    if (diff.data === undefined || path !== undefined || slice !== undefined) return;
    const first = diff.data.files.changes[0];
    if (first !== undefined) navigate({ path: first.path }, { replace: true });
    else if (changedSlices[0] !== undefined) navigate({ slice: changedSlices[0].slice_type }, { replace: true });
  }, [diff.data, path, slice, changedSlices, navigate]);

  const stepFile = (delta: number) => {
    const list = [...changes.map((change) => ({ path: change.path as string | undefined, slice: undefined as string | undefined })), ...changedSlices.map((entry) => ({ path: undefined, slice: entry.slice_type as string | undefined }))];
    if (list.length === 0) return;
    const index = list.findIndex((entry) => (entry.path !== undefined && entry.path === path) || (entry.slice !== undefined && entry.slice === slice && path === undefined));
    const next = list[Math.min(list.length - 1, Math.max(0, index + delta))];
    if (next !== undefined) navigate({ path: next.path, slice: next.slice }, { replace: true });
  };
  const setLayout = (next: "split" | "unified") => {
    setPreference("diffLayout", next);
    navigate({ layout: next }, { replace: true });
  };

  useKeymap({
    j: () => stepFile(1),
    k: () => stepFile(-1),
    n: () => handle.current?.next(),
    "shift+n": () => handle.current?.previous(),
    u: () => setLayout(effectiveLayout === "split" ? "unified" : "split"),
    x: () => {
      if (base !== undefined) navigate({ base: target, file: base.file, line: base.line }, { replace: true });
    },
  });

  return (
    <section className="compare" aria-label="Compare snapshots">
      <div className="card compare-pickers">
        <SnapshotPicker label="Base" value={base} entries={entries} onChange={(ref) => navigate({ base: ref, path: undefined, slice: undefined })} testId="base-picker" />
        <button type="button" className="icon-btn" title="Swap base and target (X)" aria-label="Swap base and target" onClick={() => base !== undefined && navigate({ base: target, file: base.file, line: base.line })}>
          <Icon name="compare" />
        </button>
        <SnapshotPicker label="Target" value={target} entries={entries} onChange={(ref) => navigate({ file: ref.file, line: ref.line, path: undefined, slice: undefined })} testId="target-picker" />
        <LayoutToggle layout={effectiveLayout} onChange={setLayout} />
      </div>
      {base === undefined ? (
        <EmptyState title="Pick a base snapshot to compare with">The target is the selected snapshot.</EmptyState>
      ) : sameRef(base, target) ? (
        <EmptyState title="Base and target are the same snapshot">Pick another base.</EmptyState>
      ) : diff.isPending ? (
        <Spinner label="Comparing…" />
      ) : diff.isError ? (
        <ErrorState error={diff.error} title="Could not compare these snapshots" onRetry={() => void diff.refetch()} />
      ) : (
        <div className="compare-layout">
          <ChangeList diff={diff.data} path={path} slice={slice} />
          <div className="compare-main card">
            {path !== undefined ? (
              <FileDiffPane base={base} target={target} path={path} layout={effectiveLayout} handle={handle} />
            ) : slice !== undefined ? (
              <SliceDiffPane base={base} target={target} sliceType={slice} layout={effectiveLayout} handle={handle} />
            ) : (
              <EmptyState title="Nothing changed between these snapshots." />
            )}
          </div>
        </div>
      )}
    </section>
  );
}

function SnapshotPicker({ label, value, entries, onChange, testId }: { label: string; value: SnapshotRef | undefined; entries: readonly SnapshotEntry[]; onChange: (ref: SnapshotRef) => void; testId: string }) {
  const key = value === undefined ? "" : `${value.line}\n${value.file}`;
  return (
    <label className="field picker">
      <span>{label}</span>
      <select
        value={key}
        onChange={(event) => {
          const [line, ...rest] = event.target.value.split("\n");
          onChange({ file: rest.join("\n"), line: Number(line) });
        }}
        data-testid={testId}
      >
        {value === undefined ? <option value="">Choose a snapshot…</option> : null}
        {entries.map((entry) => (
          <option key={`${entry.file}:${entry.line}`} value={`${entry.line}\n${entry.file}`}>
            {"  ".repeat(entry.depth)}
            {snapshotLabel(entry)} · {formatTimestamp(entry.createdAt)}
          </option>
        ))}
      </select>
    </label>
  );
}

function ChangeList({ diff, path, slice }: { diff: SnapshotDiffResponse; path: string | undefined; slice: string | undefined }) {
  const navigate = useNavigate();
  const { files } = diff;
  const sliceChanges = diff.slices.filter((entry) => entry.status !== "unchanged");
  return (
    <aside className="card change-list" aria-label="Changes">
      <h3>
        Files <span className="muted small">{files.changes.length === 0 ? `none changed (${files.unchanged_count} unchanged)` : `+${files.added} ~${files.modified} −${files.deleted} · ${files.unchanged_count} unchanged`}</span>
      </h3>
      {files.base_source === null && files.target_source === null ? <p className="muted small">Neither snapshot has a workspace.</p> : null}
      <ul className="change-items" data-testid="changed-files">
        {files.changes.map((change) => (
          <li key={change.path}>
            <button type="button" className={`change-item${change.path === path ? " is-active" : ""}`} onClick={() => navigate({ path: change.path, slice: undefined }, { replace: true })} title={change.path} data-testid="changed-file">
              <span className={`change-badge badge-${change.status}`}>{change.status[0]?.toUpperCase()}</span>
              <span className="change-path mono">{change.path}</span>
              <span className="muted small">{change.target_size !== null ? formatBytes(change.target_size) : change.base_size !== null ? formatBytes(change.base_size) : ""}</span>
            </button>
          </li>
        ))}
      </ul>
      <h3>
        Slices <span className="muted small">{sliceChanges.length === 0 ? "none changed" : `${sliceChanges.length} changed`}</span>
      </h3>
      <ul className="change-items">
        {sliceChanges.map((entry) => (
          <li key={entry.slice_type}>
            <button type="button" className={`change-item${path === undefined && entry.slice_type === slice ? " is-active" : ""}`} onClick={() => navigate({ slice: entry.slice_type, path: undefined }, { replace: true })} title={entry.slice_type} data-testid="changed-slice">
              <span className={`change-badge ${badgeClass(entry.status)}`}>{entry.status[0]?.toUpperCase()}</span>
              <span className="change-path">{entry.display_name}</span>
              <span className="muted small">
                {entry.base_count}→{entry.target_count}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}

function FileDiffPane({ base, target, path, layout, handle }: { base: SnapshotRef; target: SnapshotRef; path: string; layout: "split" | "unified"; handle: RefObject<MergeDiffHandle | null> }) {
  const fileDiff = useFileDiff(base, target, path);
  const data = fileDiff.data;
  const wantTexts = data !== undefined && !data.binary && data.hunks.length > 0 && (data.base_size ?? 0) <= FULL_TEXT_LIMIT && (data.target_size ?? 0) <= FULL_TEXT_LIMIT;
  const baseText = useFileContent(wantTexts && data?.status !== "added" ? base : null, path);
  const targetText = useFileContent(wantTexts && data?.status !== "deleted" ? target : null, path);
  if (fileDiff.isPending) return <Spinner label="Computing the diff…" />;
  if (fileDiff.isError) return <ErrorState error={fileDiff.error} title={`Could not diff ${path}`} onRetry={() => void fileDiff.refetch()} />;
  const facts = `${data?.base_size === null ? "—" : formatBytes(data?.base_size ?? 0)} → ${data?.target_size === null ? "—" : formatBytes(data?.target_size ?? 0)} · ${data?.engine === "git" ? "git diff" : "line diff"}`;
  const header = <DiffHeader title={path} status={fileDiff.data.status} facts={facts} />;
  if (fileDiff.data.status === "unchanged") return <>{header}<EmptyState title="Unchanged between these snapshots." /></>;
  if (fileDiff.data.hunks.length === 0) return <>{header}<EmptyState title="No line diff">{fileDiff.data.note ?? (fileDiff.data.binary ? "Binary file." : "The contents differ only in ways a line diff cannot show.")}</EmptyState></>;
  if (!wantTexts) return <>{header}<HunkList hunks={fileDiff.data.hunks} layout={layout} handle={handle} /></>;
  const waitingBase = fileDiff.data.status !== "added" && baseText.data === undefined;
  const waitingTarget = fileDiff.data.status !== "deleted" && targetText.data === undefined;
  if (baseText.isError || targetText.isError) return <>{header}<HunkList hunks={fileDiff.data.hunks} layout={layout} handle={handle} /></>;
  if (waitingBase || waitingTarget) return <>{header}<Spinner label="Loading both sides…" /></>;
  return (
    <>
      {header}
      <Suspense fallback={<Spinner label="Loading the diff viewer…" />}>
        <MergeDiff path={path} base={baseText.data?.content ?? ""} target={targetText.data?.content ?? ""} hunks={fileDiff.data.hunks} layout={layout} handle={handle} />
      </Suspense>
    </>
  );
}

function SliceDiffPane({ base, target, sliceType, layout, handle }: { base: SnapshotRef; target: SnapshotRef; sliceType: string; layout: "split" | "unified"; handle: RefObject<MergeDiffHandle | null> }) {
  const sliceDiff = useSliceDiff(base, target, sliceType);
  if (sliceDiff.isPending) return <Spinner label="Comparing the slice…" />;
  if (sliceDiff.isError) return <ErrorState error={sliceDiff.error} title="Could not compare the slice" onRetry={() => void sliceDiff.refetch()} />;
  const data = sliceDiff.data;
  const changed = data.items.filter((item) => item.status !== "unchanged");
  return (
    <>
      <DiffHeader title={data.display_name} status={data.status} facts={`${data.base_count} → ${data.target_count} items · ${plural(changed.length, "item")} differ`} />
      {data.hunks.length === 0 ? <EmptyState title="No JSON difference">{data.note ?? "The slice is the same in both snapshots."}</EmptyState> : <HunkList hunks={data.hunks} layout={layout} handle={handle} />}
    </>
  );
}
