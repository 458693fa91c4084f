/**
 * Search across bundles and across everything a bundle holds — logs, transcript, the small
 * JSON and text members (request, output, error, metrics, config, run context, eval,
 * environment), the session's slices and the workspace files — where WINK's viewer searches
 * each view on its own. A case-insensitive substring, or a regular expression, bounded in
 * hits and time.
 */
import { searchSlices } from "../session/event-loop-slices.js";
import { searchSnapshot, snippet } from "../viewer/search.js";
import { createMatcher } from "../viewer/text-matcher.js";
import type { DebugBundle } from "./bundle.js";
import { ENVIRONMENT_MEMBERS } from "./environment.js";
import { BUNDLE_MEMBERS } from "./layout.js";
import type { BundleSearchHitView, BundleSearchView } from "./types.js";

export type BundleSearchScope = "logs" | "transcript" | "members" | "slices" | "files";

export const BUNDLE_SEARCH_SCOPES: readonly BundleSearchScope[] = ["logs", "transcript", "members", "slices", "files"];

export interface BundleSearchOptions {
  readonly scopes?: readonly BundleSearchScope[];
  /** Most hits in all (default 200). */
  readonly maxHits?: number;
  /** Time budget in milliseconds (default 3,000). */
  readonly timeoutMs?: number;
  readonly now?: () => number;
  /** Treat the query as a regular expression (case-sensitive; see `shared/viewer/text-matcher.ts`). */
  readonly regex?: boolean;
  /** Compiles a regular expression (the server insists on linear-time matching). */
  readonly compileRegex?: (source: string) => RegExp;
}

/** Members searched as text, in the order a reader meets them. */
const SEARCHED_MEMBERS = [
  BUNDLE_MEMBERS.error,
  BUNDLE_MEMBERS.requestInput,
  BUNDLE_MEMBERS.requestOutput,
  BUNDLE_MEMBERS.metrics,
  BUNDLE_MEMBERS.config,
  BUNDLE_MEMBERS.runContext,
  BUNDLE_MEMBERS.eval,
  BUNDLE_MEMBERS.promptOverrides,
  ...Object.values(ENVIRONMENT_MEMBERS),
];

/** Searches `query` in each bundle, in order, until the hit or time budget runs out. */
export async function searchBundles(bundles: readonly DebugBundle[], query: string, options: BundleSearchOptions = {}): Promise<BundleSearchView> {
  const now = options.now ?? (() => Date.now());
  const deadline = now() + (options.timeoutMs ?? 3000);
  const maxHits = options.maxHits ?? 200;
  const scopes = new Set(options.scopes ?? BUNDLE_SEARCH_SCOPES);
  const regex = options.regex === true;
  const matcher = createMatcher(query, { regex, ...(options.compileRegex === undefined ? {} : { compile: options.compileRegex }) });
  const view: BundleSearchView = { query, hits: [], truncated: false, scanned_bundles: 0 };
  if (query === "") return view;
  /** The snippet around the first match in the first of `texts` that has one, or null. */
  const firstSnippet = (...texts: string[]): string | null => {
    for (const text of texts) {
      const match = matcher.first(text);
      if (match !== null) return snippet(text, match.index, match.length);
    }
    return null;
  };
  const hits = view.hits;
  const full = (): boolean => {
    if (hits.length >= maxHits || now() > deadline) view.truncated = true;
    return view.truncated;
  };
  const pacer = searchSlices();
  const add = (hit: BundleSearchHitView): boolean => {
    if (hits.length >= maxHits) {
      view.truncated = true;
      return false;
    }
    hits.push(hit);
    return true;
  };

  for (const bundle of bundles) {
    if (full()) break;
    view.scanned_bundles += 1;
    const path = bundle.path;
    if (scopes.has("members")) {
      for (const member of SEARCHED_MEMBERS) {
        await pacer.pace();
        if (full()) break;
        const text = await bundle.text(member).catch(() => null);
        const found = text === null ? null : firstSnippet(text);
        if (found !== null) add({ bundle: path, kind: "member", member, snippet: found });
      }
    }
    if (scopes.has("logs") && !full()) {
      const logs = await bundle.logs().catch(() => null);
      // A substring narrows the records with the index first; a regular expression looks at each one.
      for (const index of logs?.matching(regex ? {} : { search: query }) ?? []) {
        await pacer.pace();
        if (logs === null || (regex && full())) break;
        const entry = logs.entry(index);
        // The index matched the context as written (Python's spacing); its parsed form may differ.
        const found = firstSnippet(entry.message, JSON.stringify(entry.context)) ?? (regex ? null : snippet(entry.message, 0, 0));
        if (found === null) continue;
        if (!add({ bundle: path, kind: "log", line_number: entry.line_number, level: entry.level, logger: entry.logger, event: entry.event, snippet: found })) break;
      }
    }
    if (scopes.has("transcript") && !full()) {
      const transcript = await bundle.transcript().catch(() => null);
      for (const index of transcript?.matching(regex ? {} : { search: query }) ?? []) {
        await pacer.pace();
        if (transcript === null || (regex && full())) break;
        const entry = transcript.entry(index);
        const found = firstSnippet(entry.content, entry.raw_json ?? "", entry.parsed ?? "") ?? (regex ? null : snippet(entry.content, 0, 0));
        if (found === null) continue;
        if (!add({ bundle: path, kind: "transcript", rowid: entry.rowid, entry_type: entry.entry_type, snippet: found })) break;
      }
    }
    if (scopes.has("slices") && !full()) {
      const session = await bundle.session().catch(() => null);
      const line = session?.defaultLine ?? null;
      const snapshot = line === null ? undefined : session?.snapshot(line);
      if (snapshot !== undefined && line !== null) {
        const found = await searchSnapshot(snapshot, null, query, { scopes: ["slices"], maxHits: maxHits - hits.length, timeoutMs: Math.max(0, deadline - now()), now, regex, ...(options.compileRegex === undefined ? {} : { compileRegex: options.compileRegex }) });
        for (const hit of found.hits) if (hit.kind === "slice") add({ bundle: path, line_number: line, ...hit });
        if (found.truncated) view.truncated = true;
      }
    }
    if (scopes.has("files") && !full()) {
      const workspace = bundle.workspace();
      if (workspace !== null) {
        const found = await searchSnapshot({ slices: [] }, workspace, query, { scopes: ["files"], maxHits: maxHits - hits.length, timeoutMs: Math.max(0, deadline - now()), now, regex, ...(options.compileRegex === undefined ? {} : { compileRegex: options.compileRegex }) });
        for (const hit of found.hits) if (hit.kind === "file") add({ bundle: path, ...hit });
        if (found.truncated) view.truncated = true;
      }
    }
  }
  full();
  // A string matched only in its first part (see MAX_REGEX_INPUT) makes the answer partial, not the search shorter.
  if (matcher.clippedInputs > 0) view.truncated = true;
  return view;
}
