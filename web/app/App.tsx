/**
 * The application shell: header, sidebar (sessions, slices), the selected snapshot's card,
 * the five views, and the overlays. It owns the global shortcuts and starts live reload.
 */
import { skipToken, useQuery, useQueryClient } from "@tanstack/react-query";
import { Suspense, lazy, useCallback, useEffect, useMemo, useRef } from "react";
import type { RunResponse, SnapshotRef } from "../api/api.js";
import { at } from "../api/api.js";
import { useApi } from "../api/context.js";
import { keys } from "../api/keys.js";
import { EmptyState, ErrorState, Spinner } from "../components/feedback.js";
import { useLocalOpener, DropZone } from "../features/drop/DropZone.js";
import type { Command } from "../features/palette/CommandPalette.js";
import { CommandPalette } from "../features/palette/CommandPalette.js";
import { RunOverview } from "../features/run/RunOverview.js";
import { RunsPanel } from "../features/runs/RunsPanel.js";
import { failurePatch, showsFailure } from "../state/run-links.js";
import { previousInSession, snapshotChoices } from "../features/palette/snapshot-commands.js";
import { flattenSnapshots, stepSnapshot } from "../features/sessions/snapshot-list.js";
import { SnapshotCard } from "../features/snapshot/SnapshotCard.js";
import { browseRequest, diffRequest, slicePage } from "../queries/options.js";
import { routeQuery } from "../queries/route-query.js";
import { useFiles, useMeta, useNewestRun, useRun } from "../queries/hooks.js";
import { useLiveReload } from "../queries/useLiveReload.js";
import { getPreferences, setPreference, usePreferences } from "../state/preferences.js";
import { captureKeysWhile, dispatchKey, useKeymap, useShortcutListener } from "../state/shortcuts.js";
import { overlay } from "../state/store.js";
import { showToast } from "../state/toasts.js";
import { navigate, readViewState, useViewState } from "../state/url-store.js";
import { VIEWS, VIEW_LABELS, panelPatch, selectSnapshotPatch, selectedRef, viewPatch } from "../state/view-state.js";
import type { ViewState } from "../state/view-state.js";
import { Header } from "./Header.js";
import { SidebarResizer } from "./SidebarResizer.js";
import { whenIdle } from "./when-idle.js";
import { useAfterFirstPaint } from "./after-first-paint.js";

// Views other than the landing one (the run overview) and the overlays are separate chunks,
// fetched when first shown or, after start-up, while the browser is idle (see useIdlePreload):
// the first chunk holds only what the landing page draws.
const loadSlices = () => import("../features/slices/SlicesView.js");
const loadTimeline = () => import("../features/timeline/TimelineView.js");
const loadFiles = () => import("../features/file-tree/FilesView.js");
const loadCompare = () => import("../features/diff/CompareView.js");
const loadSearch = () => import("../features/search/SearchView.js");
const loadHelp = () => import("../features/help/HelpOverlay.js");
const loadBundlePanels = () => import("../features/bundle/BundlePanelView.js");
const loadEval = () => import("../features/eval/EvalView.js");
const EvalView = lazy(() => loadEval().then((module) => ({ default: module.EvalView })));
const SlicesView = lazy(() => loadSlices().then((module) => ({ default: module.SlicesView })));
const TimelineView = lazy(() => loadTimeline().then((module) => ({ default: module.TimelineView })));
const FilesView = lazy(() => loadFiles().then((module) => ({ default: module.FilesView })));
const CompareView = lazy(() => loadCompare().then((module) => ({ default: module.CompareView })));
const SearchView = lazy(() => loadSearch().then((module) => ({ default: module.SearchView })));
const HelpOverlay = lazy(() => loadHelp().then((module) => ({ default: module.HelpOverlay })));
const BundlePanelView = lazy(() => loadBundlePanels().then((module) => ({ default: module.BundlePanelView })));

// The view a deep link opens starts loading with the app, not after the first render.
const VIEW_LOADERS: Partial<Record<ViewState["view"], () => Promise<unknown>>> = { slices: loadSlices, timeline: loadTimeline, files: loadFiles, compare: loadCompare, search: loadSearch, panel: loadBundlePanels, eval: loadEval };
void VIEW_LOADERS[readViewState().view]?.();

/** Starts the selected view's main request at once (in parallel with its chunk). */
function usePrefetchView(state: ViewState, selected: SnapshotRef | null): void {
  const api = useApi();
  const client = useQueryClient();
  const view = state.view;
  const copies = state.copies ?? false;
  const base = useSnapshotRef(state.base);
  useEffect(() => {
    if (selected === null) return;
    if (view === "timeline") void client.prefetchQuery(routeQuery(api, "timeline", at(selected)));
    else if (view === "files") void client.prefetchQuery(routeQuery(api, "browse", browseRequest(selected, base ?? "previous")));
    else if (view === "compare" && base !== null) void client.prefetchQuery(routeQuery(api, "diff", diffRequest(base, selected, copies)));
  }, [api, client, view, base, selected, copies]);
}

/** The other views' chunks, once the first view is on screen and the browser is idle. */
function useIdlePreload(firstViewShown: boolean): void {
  useEffect(() => {
    if (!firstViewShown) return;
    return whenIdle(() => {
      for (const load of [loadSlices, loadTimeline, loadFiles, loadCompare, loadSearch, loadHelp, loadBundlePanels]) void load();
    }, 4000);
  }, [firstViewShown]);
}
import type { SourceSwitch } from "./source-switch.js";

// Keys typed right after ⌘K belong to the palette, even before its input has focus.
captureKeysWhile(() => overlay.get() === "palette");
import { useSnapshotRef } from "../state/use-snapshot-ref.js";
import { Toasts } from "./Toasts.js";
import { ViewTabs } from "./ViewTabs.js";

export function App({ source }: { source: SourceSwitch }) {
  const client = useQueryClient();
  const state = useViewState();
  const preferences = usePreferences();
  const openOverlay = overlay.use();
  const linked = selectedRef(state);
  // The eval shows no run: its newest, that run's meta and first slice pages would only stand
  // before the eval's own answers on the server.
  const newest = useNewestRun(linked === null && state.file === undefined && state.view !== "eval");
  const run = useRun(state.file ?? (linked === null ? (newest.data?.source.path ?? null) : null));
  // Until the URL names a snapshot, the newest run's (or the named run's) latest state is shown
  // at once; the URL follows (useSelectionBootstrap).
  const landing = linked === null ? landingRef(state.file === undefined ? newest.data : run.data) : null;
  const selected = useSnapshotRef(linked ?? landing);
  // The eval selects no snapshot: its own first paint lets the sidebar and the idle work in.
  const painted = useAfterFirstPaint(selected !== null || state.view === "eval");
  // Every snapshot of every file: for stepping between snapshots and the palette. The eval
  // selects none, and over 10,000 runs they are ~20 pages (4 MB) asked before its first
  // paint: there they wait for the palette.
  const files = useFiles(state.view !== "eval" || openOverlay === "palette");
  const entries = useMemo(() => flattenSnapshots(files.data), [files.data]);
  const meta = useMeta(painted || state.view !== "run" ? selected : null);
  useShortcutListener();
  useLiveReload();
  // The eval spans the runs: no snapshot is picked for it.
  useSelectionBootstrap(linked === null && state.view !== "eval" ? landing : null);
  usePrefetchFirstPages(selected, meta.data);
  useIdlePreload(painted);
  usePrefetchView(state, selected);

  const reload = useCallback(() => {
    void client.invalidateQueries({ queryKey: keys.all }).then(() => showToast("Data reloaded"));
  }, [client]);
  const stepSlice = useCallback(
    (delta: number) => {
      const slices = meta.data?.slices ?? [];
      if (slices.length === 0) return;
      const ordered = [...slices.filter((slice) => slice.kind === "state"), ...slices.filter((slice) => slice.kind === "event")];
      const index = ordered.findIndex((slice) => slice.slice_type === state.slice);
      const next = ordered[Math.min(ordered.length - 1, Math.max(0, index + delta))];
      if (next !== undefined) navigate({ view: "slices", slice: next.slice_type, item: undefined });
    },
    [meta.data, state.slice],
  );
  const stepSession = useCallback(
    (delta: number) => {
      const next = stepSnapshot(entries, selected, delta);
      if (next !== null) navigate(selectSnapshotPatch(next));
    },
    [entries, selected],
  );
  // N / Shift+N: the next (previous) failure of the run, from any view, in its timeline.
  const stepFailure = useCallback(
    (delta: 1 | -1) => {
      const failures = run.data?.failures ?? [];
      if (run.data === undefined) return;
      if (failures.length === 0) {
        showToast("No failures in this run");
        return;
      }
      const here = failures.findIndex((failure) => showsFailure(state, failure));
      const next = here === -1 ? (delta === 1 ? failures[0] : failures[failures.length - 1]) : failures[(here + delta + failures.length) % failures.length];
      if (next === undefined) return;
      if (here !== -1 && ((delta === 1 && here === failures.length - 1) || (delta === -1 && here === 0))) showToast(delta === 1 ? "Back to the first failure" : "Back to the last failure");
      navigate(failurePatch(run.data.source.path, next));
    },
    [run.data, state],
  );

  useKeymap({
    "mod+k": () => overlay.set(overlay.get() === "palette" ? "none" : "palette"),
    "?": () => overlay.set("help"),
    r: reload,
    d: () => setPreference("theme", getPreferences().theme === "dark" ? "light" : "dark"),
    "[": () => setPreference("sidebarCollapsed", !getPreferences().sidebarCollapsed),
    h: () => stepSlice(-1),
    l: () => stepSlice(1),
    n: () => stepFailure(1),
    "shift+n": () => stepFailure(-1),
    arrowleft: () => stepSession(-1),
    arrowright: () => stepSession(1),
    ...Object.fromEntries(VIEWS.map((view, index) => [String(index + 1), () => navigate(viewPatch(view))])),
    // The run's own panels: 7, 8, 9 for the first three, 0 for the next one (round).
    ...Object.fromEntries(PANEL_KEYS.map((key, index) => [key, () => stepPanel(run.data?.panels ?? [], state, index)])),
    escape: (event) => {
      if (event.target instanceof HTMLInputElement) {
        event.target.blur();
        return true;
      }
      return false;
    },
  });

  const commands = usePaletteCommands(selected, meta.data, entries, run.data, reload, source);

  return (
    <div className={`app${preferences.sidebarCollapsed ? " sidebar-collapsed" : ""}`}>
      <a className="skip-link" href="#main">
        Skip to the view
      </a>
      <Header source={source} onReload={reload} />
      <div className="app-body">
        {/* The resizer sits inside the landmark: content outside every landmark is lost to a screen reader's region navigation. */}
        <aside className="sidebar-pane" aria-label="Runs and sessions" hidden={preferences.sidebarCollapsed}>
          <div className="sidebar" style={{ width: preferences.sidebarWidth }}>
            {/* The eval is of no one run: none is marked current, though a run (the landing one) is loaded. */}
            {painted ? <RunsPanel selected={state.view === "eval" ? null : selected} currentFile={state.view === "eval" ? null : (state.file ?? run.data?.source.path ?? null)} /> : null}
          </div>
          {preferences.sidebarCollapsed ? null : <SidebarResizer />}
        </aside>
        <main className="main" id="main" tabIndex={-1}>
          {state.view === "eval" ? (
            <Suspense fallback={<Spinner label="Loading the eval…" />}>
              <EvalView state={state} />
            </Suspense>
          ) : selected === null ? (
            run.data !== undefined && run.data.sessions.length === 0 ? (
              // A run with no loadable line: its overview says why (and which lines failed).
              <RunOverview file={run.data.source.path} />
            ) : run.isError && state.file !== undefined ? (
              <ErrorState error={run.error} title={`Could not open ${state.file}`} onRetry={() => void run.refetch()} />
            ) : files.isError ? (
              <ErrorState error={files.error} title="Could not open the snapshots" onRetry={() => void files.refetch()} />
            ) : files.data !== undefined && entries.length === 0 ? (
              <EmptyState title="No loadable snapshot">None of the session files holds a line that loads; the runs panel lists why.</EmptyState>
            ) : (
              <Spinner label="Opening the newest run…" />
            )
          ) : meta.isError ? (
            <>
              <ErrorState error={meta.error} title={`Line ${selected.line} of ${selected.file} is not available`} onRetry={() => void meta.refetch()} />
              {entries[0] !== undefined ? (
                <button type="button" className="btn" onClick={() => entries[0] !== undefined && navigate(selectSnapshotPatch(entries[0]))}>
                  Open {entries[0].fileName} · line {entries[0].line} instead
                </button>
              ) : null}
            </>
          ) : (
            <>
              <SnapshotCard snapshot={selected} meta={meta.data} run={run.data} />
              <ViewTabs active={state.view} panel={state.panel} panels={run.data?.panels ?? []} />
              <div className="view" data-view={state.view} role="tabpanel" aria-labelledby={`tab-${state.view === "panel" ? `panel-${state.panel ?? ""}` : state.view}`}>
                {/* Only the slices view needs the snapshot's metadata first; the others start their own requests at once. */}
                <Suspense fallback={<Spinner label="Loading the view…" />}>
                  {meta.data === undefined && state.view === "slices" ? <Spinner label="Loading the snapshot…" /> : <ActiveView state={state} snapshot={selected} meta={meta.data} bundle={run.data?.source.kind === "bundle"} />}
                </Suspense>
              </div>
            </>
          )}
        </main>
      </div>
      {openOverlay === "palette" ? <CommandPalette commands={commands} onClose={() => overlay.set("none")} /> : null}
      <Suspense fallback={null}>{openOverlay === "help" ? <HelpOverlay onClose={() => overlay.set("none")} /> : null}</Suspense>
      <DropZone onOpen={source.openLocal} />
      <Toasts />
    </div>
  );
}

/**
 * The Files view badges against the compare base only when it is an earlier line of the
 * same session file: a base left in the URL by a compare with a later turn (or another
 * run) would mark the files of later turns deleted.
 */
function filesBase(base: SnapshotRef | undefined, snapshot: SnapshotRef): SnapshotRef | undefined {
  return base !== undefined && base.file === snapshot.file && base.line < snapshot.line ? base : undefined;
}

function ActiveView({ state, snapshot, meta, bundle }: { state: ViewState; snapshot: SnapshotRef; meta: ReturnType<typeof useMeta>["data"]; bundle: boolean }) {
  switch (state.view) {
    case "run":
      return <RunOverview file={snapshot.file} />;
    case "timeline":
      return <TimelineView snapshot={snapshot} selectedEvent={state.event} change={state.change} />;
    case "files":
      return <FilesView snapshot={snapshot} path={state.path} line={state.at} base={filesBase(state.base, snapshot)} />;
    case "compare":
      return <CompareView target={snapshot} base={state.base} path={state.path} slice={state.slice} layout={state.layout} at={state.at} side={state.side} copies={state.copies ?? false} />;
    case "search":
      return <SearchView snapshot={snapshot} query={state.q} regex={state.regex ?? false} />;
    case "panel":
      if (bundle) return <BundlePanelView file={snapshot.file} state={state} />;
      return <EmptyState title={`This viewer cannot show the "${state.panel ?? ""}" panel`}>The run offers it, but no view for it is built into this version.</EmptyState>;
    default:
      return meta === undefined ? null : <SlicesView snapshot={snapshot} meta={meta} sliceType={state.slice} item={state.item} />;
  }
}

/**
 * Once a snapshot's metadata is in, the first page of each slice is fetched while the
 * browser is idle, so opening a slice (even one of 2,400 items) renders at once.
 */
function usePrefetchFirstPages(selected: SnapshotRef | null, meta: ReturnType<typeof useMeta>["data"]) {
  const api = useApi();
  const client = useQueryClient();
  useEffect(() => {
    if (selected === null || meta === undefined) return;
    return whenIdle(() => {
      for (const slice of meta.slices) if (slice.count > 0) void client.prefetchQuery(routeQuery(api, "slicePage", slicePage(selected, slice.slice_type, 0)));
    }, 2000);
  }, [api, client, selected, meta]);
}

/** The snapshot a run opens at: its root session's latest line (the line that holds the whole history). */
function landingRef(run: RunResponse | undefined): SnapshotRef | null {
  const root = run?.sessions[0];
  return run === undefined || root === undefined ? null : { file: run.source.path, line: root.latest_line };
}

/**
 * Without a snapshot in the URL, the app shows the newest run (or, with a run but no line,
 * that run) at its landing snapshot; this writes that snapshot into the URL.
 */
function useSelectionBootstrap(landing: SnapshotRef | null) {
  const file = landing?.file;
  const line = landing?.line;
  useEffect(() => {
    if (file !== undefined && line !== undefined) navigate({ file, line }, { replace: true });
  }, [file, line]);
}

/** A snapshot as the palette names it: its turn label in the run, else its line. */
function snapshotName(run: RunResponse | undefined, ref: SnapshotRef): string {
  for (const session of run?.sessions ?? []) for (const snapshot of session.snapshots) if (snapshot.line_number === ref.line) return snapshot.label;
  return `line ${ref.line}`;
}

/** Keys of the run's panels: the first three, then "the next one". */
const PANEL_KEYS = ["7", "8", "9", "0"] as const;

/** Key `index` of {@link PANEL_KEYS}: a panel by position, or (0) the one after the panel shown. */
function stepPanel(panels: readonly { id: string }[], state: ViewState, index: number): boolean {
  if (panels.length === 0) {
    showToast("This run has no panels of its own");
    return true;
  }
  const shown = state.view === "panel" ? panels.findIndex((panel) => panel.id === state.panel) : -1;
  const target = index < 3 ? panels[index] : panels[(shown + 1) % panels.length];
  if (target !== undefined) navigate(panelPatch(target.id));
  return true;
}

/**
 * Shows the slices view, then gives it `key` as if typed (after the palette has closed), as
 * soon as the view is there to take it: its chunk and the snapshot's metadata may still be
 * loading, and a key pressed before then was lost.
 */
function pressInSlices(key: string): void {
  navigate({ view: "slices" });
  const started = Date.now();
  const attempt = () => {
    if (dispatchKey(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true }))) return;
    if (Date.now() - started < 5000) setTimeout(attempt, 50);
    else showToast("The slices view did not open in time", "error");
  };
  setTimeout(attempt, 0);
}

function usePaletteCommands(selected: SnapshotRef | null, meta: ReturnType<typeof useMeta>["data"], entries: ReturnType<typeof flattenSnapshots>, run: RunResponse | undefined, reload: () => void, source: SourceSwitch): Command[] {
  const api = useApi();
  const paletteOpen = overlay.use() === "palette";
  const tree = useQuery({ ...routeQuery(api, "browse", selected === null ? skipToken : browseRequest(selected, "none")), enabled: paletteOpen }).data;
  const picker = useRef<HTMLInputElement | null>(null);
  const openLocal = useLocalOpener(source.openLocal);
  return useMemo(() => {
    const panels = run?.panels ?? [];
    const previous = previousInSession(run, selected);
    const commands: Command[] = [
      ...(previous === null || selected === null
        ? []
        : [
            {
              id: "compare-previous",
              group: "Actions",
              title: "Compare with the Previous Turn",
              subtitle: `${snapshotName(run, previous)} → ${snapshotName(run, selected)}`,
              run: () => navigate({ ...viewPatch("compare"), base: previous, path: undefined, slice: undefined, at: undefined, side: undefined }),
            } satisfies Command,
          ]),
      { id: "reload", group: "Actions", title: "Reload Data", subtitle: "fetch every view's data again", shortcut: "R", run: reload },
      { id: "theme", group: "Actions", title: "Toggle Dark Mode", shortcut: "D", run: () => setPreference("theme", getPreferences().theme === "dark" ? "light" : "dark") },
      { id: "sidebar", group: "Actions", title: "Toggle Sidebar", shortcut: "[", run: () => setPreference("sidebarCollapsed", !getPreferences().sidebarCollapsed) },
      { id: "help", group: "Actions", title: "Keyboard Shortcuts", shortcut: "?", run: () => overlay.set("help") },
      // The slices view owns these; the palette presses its keys once the view is shown.
      { id: "copy-items", group: "Actions", title: "Copy the Slice's Items as JSON", subtitle: "the items its search matches (slices view)", shortcut: "E", run: () => pressInSlices("e") },
      { id: "object-filter", group: "Actions", title: "Focus Object Filter", shortcut: "O", run: () => pressInSlices("o") },
      {
        id: "open-files",
        group: "Actions",
        title: "Open Local Files…",
        subtitle: ".jsonl and .fs.zip, read in this tab",
        run: () => {
          picker.current ??= Object.assign(document.createElement("input"), { type: "file", multiple: true, accept: ".jsonl,.json,.zip" });
          const input = picker.current;
          input.onchange = () => {
            const files = [...(input.files ?? [])];
            if (files.length > 0) openLocal(import("../features/drop/read-dropped.js").then((module) => module.readFileList(files)));
          };
          input.click();
        },
      },
      ...VIEWS.map((view, index): Command => ({ id: `view-${view}`, group: "Views", title: `Go to ${VIEW_LABELS[view]}`, shortcut: String(index + 1), run: () => navigate(viewPatch(view)) })),
      ...panels.map((panel, index): Command => ({ id: `panel-${panel.id}`, group: "Views", title: `Go to ${panel.title}`, subtitle: "this run's panel", ...(index < 3 ? { shortcut: PANEL_KEYS[index] } : {}), run: () => navigate(panelPatch(panel.id)) })),
      ...(meta?.slices ?? []).map((slice): Command => ({ id: `slice-${slice.slice_type}`, group: "Slices", title: slice.display_name, subtitle: `${slice.item_display_name} · ${slice.count} items`, run: () => navigate({ view: "slices", slice: slice.slice_type, item: undefined }) })),
      ...snapshotChoices(entries, run).map(({ entry, title, subtitle, keywords }): Command => ({ id: `session-${entry.file}:${entry.line}`, group: "Sessions", title, subtitle, keywords, run: () => navigate(selectSnapshotPatch(entry)) })),
    ];
    if (tree !== undefined) {
      const walk = (node: typeof tree.root) => {
        for (const child of node.children ?? []) {
          if (child.type === "file") commands.push({ id: `file-${child.path}`, group: "Files", title: child.name, subtitle: child.path, run: () => navigate({ view: "files", path: child.path, at: undefined }) });
          else walk(child);
        }
      };
      walk(tree.root);
    }
    if (source.backToServer !== null) commands.push({ id: "back", group: "Actions", title: "Back to the Server's Snapshots", run: source.backToServer });
    return commands;
  }, [reload, meta, entries, run, selected, tree, source, openLocal]);
}
