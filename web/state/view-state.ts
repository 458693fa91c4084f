/**
 * What the URL holds, so that reloading or sharing a link restores the view: the snapshot
 * (session file + line), the view, and per view the slice and item, the file path and line,
 * the comparison base, the search query. Pure functions here; `url-store.ts` binds them to
 * the browser's history.
 */
import type { SnapshotRef } from "../api/api.js";

/** The views of a run, in tab order (keys 1–6). Runs may add panels of their own (`view=panel&panel=<id>`). */
export const VIEWS = ["run", "timeline", "slices", "files", "compare", "search"] as const;
/** `eval`: the failures across every run of the target (not a view of one run: no tab). */
export type ViewName = (typeof VIEWS)[number] | "panel" | "eval";

export const VIEW_LABELS: Record<(typeof VIEWS)[number], string> = { run: "Run", timeline: "Timeline", slices: "Slices", files: "Files", compare: "Compare", search: "Search" };

export interface ViewState {
  /** Selected snapshot; absent until the app picked one (then written back with `replace`). */
  readonly file?: string;
  readonly line?: number;
  readonly view: ViewName;
  /** Slices view: slice type; compare view: the slice whose diff is shown. */
  readonly slice?: string;
  /** Slices view: 0-based item index to focus. */
  readonly item?: number;
  /** Files and compare views: workspace file path. */
  readonly path?: string;
  /** Files view: 1-based line to reveal in `path`. */
  readonly at?: number;
  /** Compare view: the base snapshot (the selected one is the target). */
  readonly base?: SnapshotRef;
  /** Compare view: side-by-side or unified. */
  readonly layout?: "split" | "unified";
  /** Search view: the query. */
  readonly q?: string;
  /** Timeline: selected event index. */
  readonly event?: number;
  /** Timeline: the changed file of the selected tool call whose diff is open. */
  readonly change?: string;
  /** Compare view: the side `at` names (`base`; absent: the target). */
  readonly side?: "base";
  /** Search view: the query is a regular expression. */
  readonly regex?: boolean;
  /** Compare view: copies are looked for too (git's -C). */
  readonly copies?: boolean;
  /** `view=panel`: the run's panel shown (a bundle's logs, transcript…). */
  readonly panel?: string;
  /** Logs panel: the record's 1-based line in `logs/app.jsonl`; transcript panel: the entry's rowid. */
  readonly entry?: number;
  /** Logs panel: jump to the first record at or after this time (ISO-8601). */
  readonly time?: string;
  /** Logs and transcript panels: facet filters, `name:value` to keep, `!name:value` to leave out. */
  readonly facets?: readonly FacetFilter[];
  /** Eval view: the failure group opened (its signature); its runs are the ones listed. */
  readonly group?: string;
  /** Eval view: runs of this outcome only. */
  readonly outcome?: "ok" | "failed" | "error";
  /** Eval view: runs with this tag only. */
  readonly tag?: string;
  /** Eval view: runs that ended (else started, else were written) on or after / before this date. */
  readonly since?: string;
  readonly until?: string;
  /** Eval view: a failed run (`pair`) aligned against a passing run (`against`). */
  readonly pair?: string;
  readonly against?: string;
}

/** One facet filter of a panel: keep (`include`) or leave out the records whose `facet` is `value`. */
export interface FacetFilter {
  readonly facet: string;
  readonly value: string;
  readonly include: boolean;
}

/** `level:ERROR,!logger:a.b` (values URI-encoded, so commas and colons in them survive). */
export function formatFacets(filters: readonly FacetFilter[]): string {
  return filters.map((filter) => `${filter.include ? "" : "!"}${filter.facet}:${encodeURIComponent(filter.value)}`).join(",");
}

export function parseFacets(text: string): FacetFilter[] {
  const filters: FacetFilter[] = [];
  for (const part of text.split(",")) {
    const include = !part.startsWith("!");
    const body = include ? part : part.slice(1);
    const colon = body.indexOf(":");
    if (colon <= 0) continue;
    try {
      filters.push({ facet: body.slice(0, colon), value: decodeURIComponent(body.slice(colon + 1)), include });
    } catch {
      // a malformed escape: that filter is ignored
    }
  }
  return filters;
}

export const DEFAULT_VIEW: ViewName = "run";

function positiveInt(text: string | null, min: number): number | undefined {
  if (text === null || !/^\d{1,9}$/.test(text)) return undefined;
  const value = Number(text);
  return value >= min ? value : undefined;
}

function text(value: string | null): string | undefined {
  return value === null || value === "" ? undefined : value;
}

/** Reads the state from query parameters (unknown or malformed ones are ignored). */
export function parseViewState(params: URLSearchParams): ViewState {
  const view = params.get("view");
  const baseFile = text(params.get("base_file"));
  const baseLine = positiveInt(params.get("base_line"), 1);
  const layout = params.get("layout");
  const state: { -readonly [K in keyof ViewState]: ViewState[K] } = {
    view: (VIEWS as readonly string[]).includes(view ?? "") || view === "panel" || view === "eval" ? (view as ViewName) : DEFAULT_VIEW,
  };
  const file = text(params.get("file"));
  const line = positiveInt(params.get("line"), 1);
  if (file !== undefined) state.file = file;
  if (line !== undefined) state.line = line;
  const slice = text(params.get("slice"));
  if (slice !== undefined) state.slice = slice;
  const item = positiveInt(params.get("item"), 0);
  if (item !== undefined) state.item = item;
  const path = text(params.get("path"));
  if (path !== undefined) state.path = path;
  const at = positiveInt(params.get("at"), 1);
  if (at !== undefined) state.at = at;
  if (baseFile !== undefined && baseLine !== undefined) state.base = { file: baseFile, line: baseLine };
  if (layout === "split" || layout === "unified") state.layout = layout;
  const q = text(params.get("q"));
  if (q !== undefined) state.q = q;
  const event = positiveInt(params.get("event"), 0);
  if (event !== undefined) state.event = event;
  const change = text(params.get("change"));
  if (change !== undefined) state.change = change;
  if (params.get("side") === "base") state.side = "base";
  if (params.get("regex") === "1") state.regex = true;
  if (params.get("copies") === "1") state.copies = true;
  const panel = text(params.get("panel"));
  if (panel !== undefined) state.panel = panel;
  const entry = positiveInt(params.get("entry"), 1);
  if (entry !== undefined) state.entry = entry;
  const time = text(params.get("time"));
  if (time !== undefined) state.time = time;
  const facets = text(params.get("facets"));
  if (facets !== undefined) {
    const parsed = parseFacets(facets);
    if (parsed.length > 0) state.facets = parsed;
  }
  const group = text(params.get("group"));
  if (group !== undefined) state.group = group;
  const outcome = params.get("outcome");
  if (outcome === "ok" || outcome === "failed" || outcome === "error") state.outcome = outcome;
  const tag = text(params.get("tag"));
  if (tag !== undefined) state.tag = tag;
  const since = text(params.get("since"));
  if (since !== undefined) state.since = since;
  const until = text(params.get("until"));
  if (until !== undefined) state.until = until;
  const pair = text(params.get("pair"));
  const against = text(params.get("against"));
  if (pair !== undefined && against !== undefined) {
    state.pair = pair;
    state.against = against;
  }
  return state;
}

/** Writes the state as query parameters, in a stable order, leaving out defaults. */
export function serializeViewState(state: ViewState): URLSearchParams {
  const params = new URLSearchParams();
  if (state.file !== undefined) params.set("file", state.file);
  if (state.line !== undefined) params.set("line", String(state.line));
  if (state.view !== DEFAULT_VIEW) params.set("view", state.view);
  if (state.slice !== undefined) params.set("slice", state.slice);
  if (state.item !== undefined) params.set("item", String(state.item));
  if (state.path !== undefined) params.set("path", state.path);
  if (state.at !== undefined) params.set("at", String(state.at));
  if (state.base !== undefined) {
    params.set("base_file", state.base.file);
    params.set("base_line", String(state.base.line));
  }
  if (state.layout !== undefined) params.set("layout", state.layout);
  if (state.q !== undefined) params.set("q", state.q);
  if (state.event !== undefined) params.set("event", String(state.event));
  if (state.change !== undefined) params.set("change", state.change);
  if (state.side !== undefined) params.set("side", state.side);
  if (state.regex === true) params.set("regex", "1");
  if (state.copies === true) params.set("copies", "1");
  if (state.panel !== undefined) params.set("panel", state.panel);
  if (state.entry !== undefined) params.set("entry", String(state.entry));
  if (state.time !== undefined) params.set("time", state.time);
  if (state.facets !== undefined && state.facets.length > 0) params.set("facets", formatFacets(state.facets));
  if (state.group !== undefined) params.set("group", state.group);
  if (state.outcome !== undefined) params.set("outcome", state.outcome);
  if (state.tag !== undefined) params.set("tag", state.tag);
  if (state.since !== undefined) params.set("since", state.since);
  if (state.until !== undefined) params.set("until", state.until);
  if (state.pair !== undefined && state.against !== undefined) {
    params.set("pair", state.pair);
    params.set("against", state.against);
  }
  return params;
}

/** The selected snapshot, when the state names one. */
export function selectedRef(state: ViewState): SnapshotRef | null {
  return state.file !== undefined && state.line !== undefined ? { file: state.file, line: state.line } : null;
}

export type ViewPatch = { [K in keyof ViewState]?: ViewState[K] | undefined };

/** `state` with `patch` applied; keys set to `undefined` are removed. */
export function applyPatch(state: ViewState, patch: ViewPatch): ViewState {
  const next: Record<string, unknown> = { ...state };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete next[key];
    else next[key] = value;
  }
  return next as unknown as ViewState;
}

/**
 * Selecting another snapshot keeps the view but drops what belonged to the old one (item,
 * event, line in file); the file path and slice stay, since they usually exist in the next
 * snapshot too (that is how one follows a file or a slice through a run).
 */
export function selectSnapshotPatch(ref: SnapshotRef): ViewPatch {
  return { file: ref.file, line: ref.line, item: undefined, event: undefined, change: undefined, at: undefined, entry: undefined, time: undefined };
}

/** Opening one of the run views: a panel's row, time and filters are left behind. */
export function viewPatch(view: ViewName): ViewPatch {
  return { view, panel: undefined, entry: undefined, time: undefined, facets: undefined };
}

/** Opening a run's panel: its own filters, row and time start afresh. */
export function panelPatch(panel: string, rest: ViewPatch = {}): ViewPatch {
  return { view: "panel", panel, entry: undefined, time: undefined, facets: undefined, q: undefined, ...rest };
}
