/**
 * WINK debug bundles opened in the page (dropped, picked, or carried by a `wink-debug
 * bundle` HTML file): each zip is read with jszip under the archive rules
 * (`local-archive.ts`) and by the same shared bundle reader the server runs, so every
 * answer has the server's shape. Nothing is stored outside this tab's memory.
 */
import { DebugBundle, bundleMetaView, compareBundles, groupBundles, previousRun, sameRequest, searchBundles, BUNDLE_MEMBERS, looksLikeDebugBundle } from "../../shared/debug-bundle/index.js";
import type { BundleSearchScope, BundleSummaryView, LogQuery, TranscriptQuery } from "../../shared/debug-bundle/index.js";
import type { SnapshotMetaView } from "../../shared/viewer/index.js";
import type * as B from "../../shared/debug-bundle/index.js";
import type { ApiError } from "./api.js";
import type { BundleMemberKind } from "./bundle-api.js";
import { answer, serverError } from "./local-answer.js";
import { openLocalArchive } from "./local-archive.js";

/** True when dropped bytes are a debug bundle (its first entry lies under `debug_bundle/`). */
export function isBundleBytes(bytes: Uint8Array): boolean {
  return looksLikeDebugBundle(bytes);
}

/** Opens a dropped bundle: jszip under the archive rules, then the bundle reader. */
export async function openLocalBundle(path: string, bytes: Uint8Array): Promise<DebugBundle> {
  const archive = await openLocalArchive(path.slice(path.lastIndexOf("/") + 1), bytes);
  return DebugBundle.open(archive.source, { path });
}

/** What the local bundle API needs from the page's files. */
export interface LocalBundleSource {
  /** Waits until every bundle has been opened (or failed to). */
  ready(): Promise<void>;
  /** The opened bundles by path, in path order (failed ones left out). */
  bundles(): ReadonlyMap<string, DebugBundle>;
  /** The snapshot meta of a bundle's default session line, or null without a session. */
  defaultMeta(path: string): SnapshotMetaView | null;
  /** When each file was last modified (ISO-8601), for `list()`. */
  modifiedAt(path: string): string;
  /** Why a bundle did not open (the error answered for it), or null. */
  failure(path: string): ApiError | null;
}

const ms = (iso: string | undefined): number | undefined => (iso === undefined ? undefined : Date.parse(iso));

const MEMBERS: Readonly<Record<Exclude<BundleMemberKind, "manifest">, string>> = {
  config: BUNDLE_MEMBERS.config,
  metrics: BUNDLE_MEMBERS.metrics,
  error: BUNDLE_MEMBERS.error,
  "run-context": BUNDLE_MEMBERS.runContext,
  eval: BUNDLE_MEMBERS.eval,
  "prompt-overrides": BUNDLE_MEMBERS.promptOverrides,
};

/** A search of the bundles as `LocalApi.ask.bundleSearch` reads its request. */
export interface LocalBundleSearch {
  readonly file?: string | undefined;
  readonly within?: "bundle" | "group" | "all" | undefined;
  readonly scopes?: readonly BundleSearchScope[] | undefined;
  readonly limit?: number | undefined;
  readonly regex?: boolean;
}

/** The bundle routes answered in the page, one method per route (`LocalApi.ask` reads each request into these). */
export class LocalBundleApi {
  constructor(private readonly files: LocalBundleSource) {}

  async #bundle(file: string): Promise<DebugBundle> {
    await this.files.ready();
    const bundle = this.files.bundles().get(file);
    if (bundle !== undefined) return bundle;
    const failure = this.files.failure(file);
    throw failure ?? serverError("WD_ERR_NOT_FOUND", `Unknown debug bundle: ${file}`);
  }

  async #summaries(): Promise<BundleSummaryView[]> {
    await this.files.ready();
    return Promise.all([...this.files.bundles().values()].map((bundle) => bundle.summary()));
  }

  list(): Promise<B.BundleListItemView[]> {
    return answer(async () => {
      await this.files.ready();
      const paths = [...this.files.bundles().keys()];
      const newest = paths.sort((a, b) => (ms(this.files.modifiedAt(b)) ?? 0) - (ms(this.files.modifiedAt(a)) ?? 0) || (a < b ? -1 : 1));
      return newest.map((path) => ({ path, name: path.slice(path.lastIndexOf("/") + 1), created_at: this.files.modifiedAt(path), selected: false }));
    });
  }

  groups(): Promise<B.BundleGroupView[]> {
    return answer(async () => groupBundles(await this.#summaries()));
  }

  summary(file: string): Promise<B.BundleSummaryView> {
    return answer(async () => (await this.#bundle(file)).summary());
  }

  meta(file: string): Promise<B.BundleMetaView> {
    return answer(async () => bundleMetaView(await this.#bundle(file), file, this.files.defaultMeta(file)));
  }

  logs(file: string, params: LogQuery = {}): Promise<B.LogPageView> {
    return answer(async () => {
      const logs = await (await this.#bundle(file)).logs();
      return logs === null ? { entries: [], total: 0, offset: params.offset ?? 0, limit: params.limit ?? null } : logs.page(params);
    });
  }

  logFacets(file: string): Promise<B.LogFacetsView> {
    return answer(async () => (await (await this.#bundle(file)).logs())?.facets() ?? { loggers: [], events: [], levels: [] });
  }

  transcript(file: string, params: TranscriptQuery = {}): Promise<B.TranscriptPageView> {
    return answer(async () =>
      (await (await this.#bundle(file)).transcript()).page(params),
    );
  }

  transcriptFacets(file: string): Promise<B.TranscriptFacetsView> {
    return answer(async () => (await (await this.#bundle(file)).transcript()).facets());
  }

  environment(file: string): Promise<B.EnvironmentView> {
    return answer(async () => (await this.#bundle(file)).environment());
  }

  request(file: string): Promise<B.BundleRequestView> {
    return answer(async () => {
      const bundle = await this.#bundle(file);
      const [input, output] = await Promise.all([bundle.json(BUNDLE_MEMBERS.requestInput), bundle.json(BUNDLE_MEMBERS.requestOutput)]);
      return { input, output };
    });
  }

  member(file: string, kind: BundleMemberKind): Promise<unknown> {
    return answer(async () => {
      const bundle = await this.#bundle(file);
      return kind === "manifest" ? bundle.manifest.raw : bundle.json(MEMBERS[kind]);
    });
  }

  members(file: string): Promise<string[]> {
    return answer(async () => (await this.#bundle(file)).members());
  }

  memberFile(file: string, member: string): Promise<B.BundleFileView> {
    return answer(async () => {
      const bundle = await this.#bundle(file);
      if (!bundle.has(member)) throw serverError("WD_ERR_NOT_FOUND", `Artifact not found: ${member}`);
      return bundle.fileView(member);
    });
  }

  integrity(file: string): Promise<B.BundleIntegrityView> {
    return answer(async () => (await this.#bundle(file)).verifyIntegrity());
  }

  compare(target: string, base?: string): Promise<B.BundleCompareView> {
    return answer(async () => {
      const targetBundle = await this.#bundle(target);
      const baseFile = base ?? previousRun(await this.#summaries(), target);
      if (baseFile === null) throw serverError("WD_ERR_BAD_REQUEST", `${target} has no earlier bundle in its request to compare with: give base_file`);
      return compareBundles(await this.#bundle(baseFile), targetBundle);
    });
  }

  search(query: string, params: LocalBundleSearch = {}): Promise<B.BundleSearchView> {
    return answer(async () => {
      await this.files.ready();
      let bundles = [...this.files.bundles().values()];
      const within = params.within ?? "all";
      if (within !== "all") {
        if (params.file === undefined) throw serverError("WD_ERR_NOT_FOUND", "No debug bundle is selected");
        const selected = await this.#bundle(params.file);
        const members = within === "bundle" ? new Set([selected.path]) : sameRequest(await this.#summaries(), selected.path);
        bundles = bundles.filter((bundle) => members.has(bundle.path));
      }
      return searchBundles(bundles, query, { ...(params.scopes === undefined ? {} : { scopes: params.scopes }), ...(params.limit === undefined ? {} : { maxHits: params.limit }), regex: params.regex === true });
    });
  }
}
