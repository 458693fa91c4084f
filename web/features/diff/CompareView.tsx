/**
 * Compare any two snapshots (one session or across sessions and files): what changed in
 * the workspace (from sizes and CRCs, renames found as git's -M does, copies too on request as
 * -C), as a
 * directory tree with line counts and "viewed" marks; which slices changed; per file a
 * side-by-side or unified diff (both line-number columns) whose line numbers are permalinks;
 * per slice its item changes and JSON diff. Both sides are labelled in full (turn, line,
 * time). J/K step through changed files, ./, through changes in the open diff, U switches
 * the layout, V marks the file viewed, X swaps the sides, Shift+←/→ move both sides one
 * snapshot along the target's session (the previous / next pair).
 */
import { Suspense, lazy, useEffect, useMemo, useRef } from "react";
import type { CSSProperties, ReactNode, RefObject } from "react";
import type { FileChangeResponse, SnapshotDiffResponse, SnapshotRef } from "../../api/api.js";
import { sameRef } from "../../api/api.js";
import { CutPath } from "../../components/CutPath.js";
import { EmptyState, ErrorState, Spinner } from "../../components/feedback.js";
import { formatBytes, formatTimestamp, plural, shortId } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import { Link } from "../../components/Link.js";
import { PaneResizer } from "../../components/PaneResizer.js";
import type { MergeDiffHandle } from "../../editor/MergeDiff.js";
import { useBundleGroups, useDiff, useDiffStat, useFileContent, useFileDiff, useFiles, useRun, useRuns, useSliceDiff } from "../../queries/hooks.js";
import { CHANGE_LIST_WIDTH, setPreference, usePreferences } from "../../state/preferences.js";
import { useKeymap } from "../../state/shortcuts.js";
import { showToast } from "../../state/toasts.js";
import { useNavigate } from "../../state/url-store.js";
import { flattenSnapshots, sessionSnapshots } from "../sessions/snapshot-list.js";
import type { SnapshotEntry } from "../sessions/snapshot-list.js";
import { bundleLine, runLabel } from "../../state/bundle-links.js";
import { defaultBase } from "./default-base.js";
import { stepPair } from "./step-pair.js";
import { DiffHeader, LayoutToggle, badgeClass } from "../../components/DiffHeader.js";
import { HunkList } from "../../components/HunkList.js";
import { changeTree, treeFiles } from "./change-tree.js";
import type { ChangeTreeDirectory, ChangeTreeNode } from "./change-tree.js";
import { useViewedMarks } from "./viewed-marks.js";

const MergeDiff = lazy(() => import("../../editor/MergeDiff.js").then((module) => ({ default: module.MergeDiff })));
const BundleCompareCard = lazy(() => import("../bundle/BundleCompareCard.js").then((module) => ({ default: module.BundleCompareCard })));

/** Files larger than this are diffed from hunks only (no full texts in the page). */
const FULL_TEXT_LIMIT = 4 * 1024 * 1024;

export interface CompareViewProps {
  readonly target: SnapshotRef;
  readonly base: SnapshotRef | undefined;
  readonly path: string | undefined;
  readonly slice: string | undefined;
  readonly layout: "split" | "unified" | undefined;
  /** A permalinked line of the open file (in the target, or the base with `side`). */
  readonly at?: number | undefined;
  readonly side?: "base" | undefined;
  /** Look for copies too (git's -C; off by default, as in git). */
  readonly copies?: boolean;
}

/** Labels of snapshots that say which one it is in full: session, turn, archive, line, time (a bundle: its run and before/after). */
function useSnapshotLabels(entries: readonly SnapshotEntry[], file: string, bundleRuns: ReadonlyMap<string, string>): (ref: SnapshotRef) => string {
  const run = useRun(file);
  return useMemo(() => {
    const labels = new Map<string, string>();
    for (const session of run.data?.sessions ?? []) {
      for (const snapshot of session.snapshots) {
        labels.set(`${file}\n${snapshot.line_number}`, `${snapshot.label} · line ${snapshot.line_number} · ${formatTimestamp(snapshot.created_at)} — ${session.title ?? shortId(session.session_id)}`);
      }
    }
    for (const entry of entries) {
      const key = `${entry.file}\n${entry.line}`;
      const bundleRun = bundleRuns.get(entry.file);
      if (bundleRun !== undefined) labels.set(key, `${bundleRun} · ${entry.line === 1 ? "before" : "after"} the run · line ${entry.line} · ${formatTimestamp(entry.createdAt)} — ${entry.fileName}`);
      else if (!labels.has(key)) labels.set(key, `${entry.fileName} · line ${entry.line} · ${formatTimestamp(entry.createdAt)} — ${shortId(entry.sessionId)}`);
    }
    return (ref: SnapshotRef) => labels.get(`${ref.file}\n${ref.line}`) ?? `${ref.file} · line ${ref.line}`;
  }, [run.data, entries, file, bundleRuns]);
}

export function CompareView({ target, base, path, slice, layout, at, side, copies = false }: CompareViewProps) {
  const navigate = useNavigate();
  const files = useFiles();
  const preferences = usePreferences();
  const entries = useMemo(() => flattenSnapshots(files.data), [files.data]);
  const runs = useRuns();
  const isBundle = (file: string) => runs.data?.runs.some((run) => run.source.path === file && run.source.kind === "bundle") ?? false;
  const bundleTarget = isBundle(target.file);
  // A bundle is compared with the run before it in its request (retry, iteration) when there is one.
  const groups = useBundleGroups(bundleTarget);
  const bundleRuns = useMemo(() => new Map((groups.data ?? []).flatMap((group) => group.bundles.map((bundle) => [bundle.path, runLabel(bundle)] as const))), [groups.data]);
  const labelOf = useSnapshotLabels(entries, target.file, bundleRuns);
  const run = useRun(target.file);
  const previousRun = useMemo(() => {
    const bundles = groups.data?.find((group) => group.bundles.some((bundle) => bundle.path === target.file))?.bundles ?? [];
    const previous = bundles[bundles.findIndex((bundle) => bundle.path === target.file) - 1];
    return previous === undefined ? null : { file: previous.path, line: bundleLine(previous) };
  }, [groups.data, target.file]);
  const suggested = useMemo(() => {
    // Wait until it is known whether the target is a bundle, and which run came before it.
    if (base !== undefined || runs.isPending || (bundleTarget && groups.isPending)) return null;
    return previousRun ?? defaultBase(entries, target);
  }, [entries, target, base, runs.isPending, bundleTarget, groups.isPending, previousRun]);
  useEffect(() => {
    if (base === undefined && suggested !== null) navigate({ base: suggested }, { replace: true });
  }, [base, suggested, navigate]);
  const effectiveLayout = layout ?? preferences.diffLayout;
  const diff = useDiff(base ?? null, target, copies);
  const stat = useDiffStat(base ?? null, target, copies);
  const handle = useRef<MergeDiffHandle>(null);
  const { viewed, toggle } = useViewedMarks(base, target);

  const counts = useMemo(() => new Map((stat.data?.files ?? []).map((entry) => [entry.path, { added: entry.added, removed: entry.removed }])), [stat.data]);
  const gap = base === undefined ? null : workspaceGap(diff.data, base, target, isBundle);
  // Against a side with no workspace every file would read as added (or deleted): none is listed.
  const tree = useMemo(() => changeTree(gap === null ? (diff.data?.files.changes ?? []) : [], counts), [diff.data, counts, gap]);
  const ordered = useMemo(() => treeFiles(tree).map((file) => file.change), [tree]);
  const changedSlices = (diff.data?.slices ?? []).filter((entry) => entry.status !== "unchanged");
  const openChange = ordered.find((change) => change.path === path);
  useEffect(() => {
    // Open the first changed text file with lines to show (or slice) when nothing is picked
    // yet: a binary first (a bundle's logo.png) opened on "Binary file.", an empty one on "No
    // line diff". The line counts say which is which; a comparison without them opens its first file.
    // Not before the run list says which files are bundles (a bundle's side may have no workspace to open).
    if (diff.data === undefined || path !== undefined || slice !== undefined || stat.isPending || runs.isPending) return;
    const counted = new Map((stat.data?.files ?? []).map((entry) => [entry.path, entry]));
    const shows = (change: FileChangeResponse) => {
      const entry = counted.get(change.path);
      return entry === undefined || (!entry.binary && (entry.added === null || entry.added + (entry.removed ?? 0) > 0));
    };
    const first = ordered.find(shows) ?? ordered.find((change) => counted.get(change.path)?.binary !== true) ?? ordered[0];
    if (first !== undefined) navigate({ path: first.path }, { replace: true });
    else if (changedSlices[0] !== undefined) navigate({ slice: changedSlices[0].slice_type }, { replace: true });
  }, [diff.data, stat.isPending, stat.data, runs.isPending, path, slice, changedSlices, ordered, navigate]);

  const stepFile = (delta: number) => {
    const list = [...ordered.map((change) => ({ path: change.path as string | undefined, slice: undefined as string | undefined })), ...changedSlices.map((entry) => ({ path: undefined, slice: entry.slice_type as string | undefined }))];
    if (list.length === 0) return;
    const index = list.findIndex((entry) => (entry.path !== undefined && entry.path === path) || (entry.slice !== undefined && entry.slice === slice && path === undefined));
    const next = list[Math.min(list.length - 1, Math.max(0, index + delta))];
    if (next !== undefined) navigate({ path: next.path, slice: next.slice, at: undefined, side: undefined }, { replace: true });
  };
  const setLayout = (next: "split" | "unified") => {
    setPreference("diffLayout", next);
    navigate({ layout: next }, { replace: true });
  };
  const swap = () => {
    if (base !== undefined) navigate({ base: target, file: base.file, line: base.line, at: undefined, side: undefined }, { replace: true });
  };
  const order = useMemo(() => sessionSnapshots(run.data, target), [run.data, target]);
  const pairStep = (delta: 1 | 0 | -1) => stepPair(order, base, target, delta);
  const stepBoth = (delta: 1 | 0 | -1) => {
    const pair = pairStep(delta);
    if (pair === null) {
      showToast(delta === 1 ? "This is the session's last pair of snapshots" : "This is the session's first pair of snapshots");
      return;
    }
    navigate({ base: pair.base, file: pair.target.file, line: pair.target.line, path: undefined, slice: undefined, at: undefined, side: undefined });
  };

  useKeymap({
    j: () => stepFile(1),
    k: () => stepFile(-1),
    ".": () => handle.current?.next(),
    ",": () => handle.current?.previous(),
    u: () => setLayout(effectiveLayout === "split" ? "unified" : "split"),
    v: () => {
      if (path === undefined) return false;
      toggle(path);
      return true;
    },
    x: swap,
    "shift+arrowleft": () => stepBoth(-1),
    "shift+arrowright": () => stepBoth(1),
  });

  return (
    <section className="compare" aria-label="Compare snapshots">
      <div className="card compare-pickers">
        <button type="button" className="icon-btn" title="Previous pair: base and target one snapshot back (Shift+←)" aria-label="Previous pair" onClick={() => stepBoth(-1)} disabled={pairStep(-1) === null} data-testid="previous-pair">
          <Icon name="chevronLeft" />
        </button>
        <SnapshotPicker label="Base" value={base} entries={entries} runFile={target.file} labelOf={labelOf} onChange={(ref) => navigate({ base: ref, path: undefined, slice: undefined, at: undefined, side: undefined })} testId="base-picker" />
        <button type="button" className="icon-btn" title="Swap base and target (X)" aria-label="Swap base and target" onClick={swap}>
          <Icon name="compare" />
        </button>
        <SnapshotPicker label="Target" value={target} entries={entries} runFile={target.file} labelOf={labelOf} onChange={(ref) => navigate({ file: ref.file, line: ref.line, path: undefined, slice: undefined, at: undefined, side: undefined })} testId="target-picker" />
        <button type="button" className="icon-btn" title="Next pair: base and target one snapshot on (Shift+→)" aria-label="Next pair" onClick={() => stepBoth(1)} disabled={pairStep(1) === null} data-testid="next-pair">
          <Icon name="chevronRight" />
        </button>
        <LayoutToggle layout={effectiveLayout} onChange={setLayout} />
      </div>
      {base !== undefined && base.file !== target.file && bundleTarget && isBundle(base.file) ? (
        <Suspense fallback={<Spinner label="Comparing the two runs…" />}>
          <BundleCompareCard base={base.file} target={target.file} />
        </Suspense>
      ) : null}
      {base === undefined ? (
        <EmptyState title="Pick a base snapshot to compare with">The target is the selected snapshot.</EmptyState>
      ) : sameRef(base, target) ? (
        <EmptyState title="Base and target are the same snapshot">
          {/* Zero steps: the target stays, the base becomes the snapshot before it (←/→ moved the target onto the base). */}
          {pairStep(0) === null ? (
            "Pick another base."
          ) : (
            <button type="button" className="btn" onClick={() => stepBoth(0)} data-testid="compare-previous">
              Compare with the snapshot before it
            </button>
          )}
        </EmptyState>
      ) : diff.isPending ? (
        <Spinner label="Comparing…" />
      ) : diff.isError ? (
        <ErrorState error={diff.error} title="Could not compare these snapshots" onRetry={() => void diff.refetch()} />
      ) : (
        <div className="compare-layout" style={{ "--change-list-width": `${preferences.changeListWidth}px` } as CSSProperties}>
          <ChangeList diff={diff.data} gap={gap} tree={tree} path={path} slice={slice} viewed={viewed} onToggleViewed={toggle} statTruncated={stat.data?.truncated ?? false} copies={copies} onToggleCopies={() => navigate({ copies: copies ? undefined : true, path: undefined, at: undefined, side: undefined }, { replace: true })} />
          <PaneResizer preference="changeListWidth" range={CHANGE_LIST_WIDTH} label="Resize the list of changes" />
          <div className="compare-main card">
            <div className="side-labels" data-testid="side-labels">
              <span className="side-label" data-testid="base-label">
                <span className="side-name">Base</span> {labelOf(base)}
              </span>
              <span className="side-label" data-testid="target-label">
                <span className="side-name">Target</span> {labelOf(target)}
              </span>
            </div>
            {path !== undefined ? (
              <FileDiffPane
                base={base}
                target={target}
                path={path}
                change={openChange}
                layout={effectiveLayout}
                handle={handle}
                at={at}
                side={side}
                viewed={viewed.has(path)}
                onToggleViewed={() => toggle(path)}
                onLineClick={(line, which) => navigate({ at: line, side: which === "base" ? "base" : undefined }, { replace: true })}
              />
            ) : slice !== undefined ? (
              <SliceDiffPane base={base} target={target} sliceType={slice} layout={effectiveLayout} handle={handle} />
            ) : ordered.length > 0 || changedSlices.length > 0 ? (
              <Spinner label="Opening the first changed file…" />
            ) : (
              <EmptyState title="Nothing changed between these snapshots." />
            )}
          </div>
        </div>
      )}
    </section>
  );
}

/** A snapshot list that starts with the compared run's own snapshots; the directory's other runs follow. */
function SnapshotPicker({ label, value, entries, runFile, labelOf, onChange, testId }: { label: string; value: SnapshotRef | undefined; entries: readonly SnapshotEntry[]; runFile: string; labelOf: (ref: SnapshotRef) => string; onChange: (ref: SnapshotRef) => void; testId: string }) {
  const key = value === undefined ? "" : `${value.line}\n${value.file}`;
  const own = entries.filter((entry) => entry.file === runFile);
  const others = entries.filter((entry) => entry.file !== runFile);
  const options = (list: readonly SnapshotEntry[]) =>
    list.map((entry) => (
      <option key={`${entry.file}:${entry.line}`} value={`${entry.line}\n${entry.file}`}>
        {labelOf(entry)}
      </option>
    ));
  return (
    <label className="field picker">
      <span>{label}</span>
      <select
        value={key}
        title={value === undefined ? undefined : labelOf(value)}
        onChange={(event) => {
          const [line, ...rest] = event.target.value.split("\n");
          onChange({ file: rest.join("\n"), line: Number(line) });
        }}
        data-testid={testId}
      >
        {value === undefined ? <option value="">Choose a snapshot…</option> : null}
        {others.length === 0 ? options(own) : <optgroup label="This run">{options(own)}</optgroup>}
        {others.length === 0 ? null : <optgroup label="Other runs">{options(others)}</optgroup>}
      </select>
    </label>
  );
}

function changeTitle(change: FileChangeResponse): string {
  if (change.status === "renamed" || change.status === "copied") return `${change.status} ${change.old_path ?? ""} → ${change.path}, ${change.similarity ?? 0} %`;
  return `${change.status} ${change.path}`;
}

/**
 * A rename's or copy's source, on a line of its own under the name (the whole width of the
 * row), cut in the middle: its directories give way (ellipsis) before its file name does, so
 * a long `from weakincentives/…/name.py` still says which file; the full path is in the title.
 */
function MovedFrom({ status, from }: { status: FileChangeResponse["status"]; from: string }) {
  return (
    <span className="muted moved-from" title={from} data-testid="moved-from">
      <span className="moved-word">{status === "renamed" ? "from" : "copy of"}</span> <CutPath value={from} />
    </span>
  );
}

/**
 * The side of a comparison that is a debug bundle's line with no workspace, the other side
 * having one. A bundle captures `filesystem/` once, after the run: its "before the run" line
 * has none (nor has a failed run's bundle), and a diff against nothing would list every file
 * as added, as if the run had written the whole repository.
 */
export interface WorkspaceGap {
  readonly side: "base" | "target";
  readonly ref: SnapshotRef;
  /** The side that has a workspace. */
  readonly other: SnapshotRef;
}

function workspaceGap(diff: SnapshotDiffResponse | undefined, base: SnapshotRef, target: SnapshotRef, isBundle: (file: string) => boolean): WorkspaceGap | null {
  if (diff === undefined) return null;
  const { base_source: baseSource, target_source: targetSource } = diff.files;
  if (baseSource === null && targetSource !== null && isBundle(base.file)) return { side: "base", ref: base, other: target };
  if (targetSource === null && baseSource !== null && isBundle(target.file)) return { side: "target", ref: target, other: base };
  return null;
}

/** Says why the files are not compared, and where the one workspace there is can be browsed. */
function WorkspaceGapNote({ gap }: { gap: WorkspaceGap }) {
  const before = gap.ref.line === 1;
  return (
    <p className="muted small workspace-gap" role="note" data-testid="workspace-gap">
      {before ? "No snapshot of the workspace from before the run: a debug bundle captures filesystem/ once, after the run, so its files are not compared. " : `The ${gap.side} run's bundle holds no filesystem/ capture, so the files are not compared. `}
      <Link to={{ file: gap.other.file, line: gap.other.line, view: "files", base: undefined, path: undefined, slice: undefined, at: undefined, side: undefined }}>Browse the {gap.side === "base" ? "target" : "base"}'s workspace</Link>
    </p>
  );
}

function ChangeList({ diff, gap, tree, path, slice, viewed, onToggleViewed, statTruncated, copies, onToggleCopies }: { diff: SnapshotDiffResponse; gap: WorkspaceGap | null; tree: ChangeTreeDirectory; path: string | undefined; slice: string | undefined; viewed: ReadonlySet<string>; onToggleViewed: (path: string) => void; statTruncated: boolean; copies: boolean; onToggleCopies: () => void }) {
  const { files } = diff;
  const sliceChanges = diff.slices.filter((entry) => entry.status !== "unchanged");
  const viewedCount = files.changes.filter((change) => viewed.has(change.path)).length;
  const renderNode = (node: ChangeTreeNode, depth: number): ReactNode => {
    if (node.kind === "directory") {
      return (
        <li key={`d:${node.path}`} className="change-dir">
          <details open>
            {/* One line, cut in the middle (its last folder stays): wrapped anywhere, a deep package's path took three broken lines at 1024 px. The text and title keep the full path. */}
            <summary style={{ paddingLeft: `${depth * 12 + 6}px` }} title={node.path}>
              <Icon name="folder" size={13} />{" "}
              <span className="mono">
                <CutPath value={node.name} />
              </span>
              <LineCount added={node.added} removed={node.removed} />
            </summary>
            <ul>{node.children.map((child) => renderNode(child, depth + 1))}</ul>
          </details>
        </li>
      );
    }
    const change = node.change;
    const moved = change.status === "renamed" || change.status === "copied";
    return (
      <li key={`f:${change.path}`} className={`change-file${viewed.has(change.path) ? " is-viewed" : ""}`}>
        <input type="checkbox" className="viewed-check" checked={viewed.has(change.path)} onChange={() => onToggleViewed(change.path)} aria-label={`Viewed ${change.path}`} title="Viewed (V)" data-testid="viewed-check" />
        <Link
          to={{ path: change.path, slice: undefined, at: undefined, side: undefined }}
          replace
          className={`change-item${change.path === path ? " is-active" : ""}`}
          style={{ paddingLeft: `${depth * 12 + 4}px` }}
          title={changeTitle(change)}
          data-testid="changed-file"
          data-path={change.path}
          aria-current={change.path === path ? "true" : undefined}
        >
          <span className={`change-badge badge-${change.status}`}>{change.status === "copied" ? "C" : change.status[0]?.toUpperCase()}</span>
          <span className="change-name mono">{node.name}</span>
          {moved ? <span className="similarity">{change.similarity} %</span> : null}
          <LineCount added={node.counts?.added ?? null} removed={node.counts?.removed ?? null} />
          {moved && change.old_path !== null ? <MovedFrom status={change.status} from={change.old_path} /> : null}
        </Link>
      </li>
    );
  };
  return (
    <aside className="card change-list" aria-label="Changes">
      <h3>
        Files{" "}
        <span className="muted small">
          {gap !== null ? (
            "not compared"
          ) : files.changes.length === 0 ? (
            `none changed (${files.unchanged_count} unchanged)`
          ) : (
            <>
              {`+${files.added} ~${files.modified} −${files.deleted}${files.renamed > 0 ? ` ↻${files.renamed}` : ""}`}
              {/* An inline icon: ⧉ (U+29C9) is in no font Debian's Chromium has, and drew an empty box. */}
              {files.copied > 0 ? (
                <span className="copied-count" title={`${files.copied} copied`} aria-label={`${files.copied} copied`} data-testid="copied-count">
                  {" "}
                  <Icon name="copy" size={12} />
                  {files.copied}
                </span>
              ) : null}
              {` · ${files.unchanged_count} unchanged`}
            </>
          )}
        </span>
      </h3>
      <label className="check small copies-toggle" title="Also list added files that copy a modified one (git diff -C); renames are always found (-M, 50 %)">
        <input type="checkbox" checked={copies} onChange={onToggleCopies} data-testid="copies-toggle" /> find copies (-C)
      </label>
      {gap !== null ? <WorkspaceGapNote gap={gap} /> : null}
      {gap === null && files.changes.length > 0 ? (
        <p className="muted small viewed-count" data-testid="viewed-count">
          {viewedCount} of {files.changes.length} viewed{statTruncated ? " · line counts for the first files only" : ""}
          {files.rename_detection.limited ? " · too many files for inexact rename detection" : ""}
        </p>
      ) : null}
      {files.base_source === null && files.target_source === null ? <p className="muted small">Neither snapshot has a workspace.</p> : null}
      <ul className="change-tree" data-testid="changed-files">
        {tree.children.map((node) => renderNode(node, 0))}
      </ul>
      <h3>
        Slices <span className="muted small">{sliceChanges.length === 0 ? "none changed" : `${sliceChanges.length} changed`}</span>
      </h3>
      <ul className="change-items">
        {sliceChanges.map((entry) => (
          <li key={entry.slice_type}>
            <Link to={{ slice: entry.slice_type, path: undefined, at: undefined, side: undefined }} replace className={`change-item${path === undefined && entry.slice_type === slice ? " is-active" : ""}`} title={entry.slice_type} data-testid="changed-slice">
              <span className={`change-badge ${badgeClass(entry.status)}`}>{entry.status[0]?.toUpperCase()}</span>
              <span className="change-name">{entry.display_name}</span>
              <span className="muted small">
                {entry.base_count}→{entry.target_count}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </aside>
  );
}

function LineCount({ added, removed }: { added: number | null; removed: number | null }) {
  if (added === null && removed === null) return null;
  return (
    <span className="line-count" aria-label={`${added ?? 0} lines added, ${removed ?? 0} removed`}>
      <span className="count-add">+{added ?? 0}</span> <span className="count-del">−{removed ?? 0}</span>
    </span>
  );
}

interface FileDiffPaneProps {
  base: SnapshotRef;
  target: SnapshotRef;
  path: string;
  change: FileChangeResponse | undefined;
  layout: "split" | "unified";
  handle: RefObject<MergeDiffHandle | null>;
  at: number | undefined;
  side: "base" | undefined;
  viewed: boolean;
  onToggleViewed: () => void;
  onLineClick: (line: number, side: "base" | "target") => void;
}

function FileDiffPane({ base, target, path, change, layout, handle, at, side, viewed, onToggleViewed, onLineClick }: FileDiffPaneProps) {
  const basePath = change?.old_path ?? null;
  const fileDiff = useFileDiff(base, target, path, basePath);
  const data = fileDiff.data;
  // Unified diffs are drawn from the hunks (both line-number columns); split ones with both whole texts.
  const wantTexts = layout === "split" && data !== undefined && !data.binary && data.hunks.length > 0 && (data.base_size ?? 0) <= FULL_TEXT_LIMIT && (data.target_size ?? 0) <= FULL_TEXT_LIMIT;
  const baseText = useFileContent(wantTexts && data?.status !== "added" ? base : null, basePath ?? path);
  const targetText = useFileContent(wantTexts && data?.status !== "deleted" ? target : null, path);
  if (fileDiff.isPending) return <Spinner label="Computing the diff…" />;
  if (fileDiff.isError) return <ErrorState error={fileDiff.error} title={`Could not diff ${path}`} onRetry={() => void fileDiff.refetch()} />;
  const moved = change !== undefined && (change.status === "renamed" || change.status === "copied");
  const status = change?.status ?? fileDiff.data.status;
  const title = moved ? `${change.status} ${change.old_path ?? ""} → ${path}, ${change.similarity ?? 0} %` : path;
  const facts = `${fileDiff.data.base_size === null ? "—" : formatBytes(fileDiff.data.base_size)} → ${fileDiff.data.target_size === null ? "—" : formatBytes(fileDiff.data.target_size)} · ${fileDiff.data.engine === "git" ? "git diff" : "line diff"}`;
  const header = (
    <DiffHeader title={title} status={status} facts={facts}>
      <label className="check">
        <input type="checkbox" checked={viewed} onChange={onToggleViewed} /> viewed
      </label>
    </DiffHeader>
  );
  const list = <HunkList hunks={fileDiff.data.hunks} layout={layout} handle={handle} line={at} side={side} onLineClick={onLineClick} label={`Diff of ${path}`} />;
  if (fileDiff.data.hunks.length === 0) {
    const same = moved && fileDiff.data.base_size === fileDiff.data.target_size;
    return (
      <>
        {header}
        <EmptyState title={same ? "Moved without changes" : fileDiff.data.status === "unchanged" ? "Unchanged between these snapshots." : "No line diff"}>{same ? null : (fileDiff.data.note ?? (fileDiff.data.binary ? "Binary file." : "The contents differ only in ways a line diff cannot show."))}</EmptyState>
      </>
    );
  }
  if (!wantTexts || baseText.isError || targetText.isError) return <>{header}{list}</>;
  const waitingBase = fileDiff.data.status !== "added" && baseText.data === undefined;
  const waitingTarget = fileDiff.data.status !== "deleted" && targetText.data === undefined;
  if (waitingBase || waitingTarget) return <>{header}<Spinner label="Loading both sides…" /></>;
  return (
    <>
      {header}
      <Suspense fallback={<Spinner label="Loading the diff viewer…" />}>
        <MergeDiff path={path} base={baseText.data?.content ?? ""} target={targetText.data?.content ?? ""} hunks={fileDiff.data.hunks} layout={layout} handle={handle} line={at} side={side} onLineClick={onLineClick} only={fileDiff.data.status === "added" ? "target" : fileDiff.data.status === "deleted" ? "base" : undefined} />
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
      {data.hunks.length === 0 ? <EmptyState title="No JSON difference">{data.note ?? "The slice is the same in both snapshots."}</EmptyState> : <HunkList hunks={data.hunks} layout={data.status === "added" || data.status === "removed" ? "unified" : layout} handle={handle} label={`Diff of the ${data.display_name} slice`} />}
    </>
  );
}
