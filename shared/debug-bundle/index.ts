// Public API of shared/debug-bundle: reading WINK debug bundles, browser-safe (re-exported by
// shared/index.ts and shared/browser.ts). The zip itself is read by whoever holds it (the
// server's archive reader, jszip in the browser) and handed over as a `FileSource`.
export type * from "./types.js";
export { BUNDLE_MEMBERS, BUNDLE_ROOT, BUNDLE_SNIFF_BYTES, ENVIRONMENT_PREFIX, FILESYSTEM_PREFIX, SESSION_LINES, looksLikeDebugBundle, memberEntryName } from "./layout.js";
export type { BundleMemberName } from "./layout.js";
export { parseBundleManifest } from "./manifest.js";
export type { BundleManifest, BundleStatus, ParsedBundleManifest } from "./manifest.js";
export { IntegrityTracker, webCryptoSha256 } from "./integrity.js";
export type { Sha256 } from "./integrity.js";
export { LogIndex } from "./logs.js";
export type { LogQuery } from "./logs.js";
export { TRANSCRIPT_EVENT, TranscriptIndex, readableContent, transcriptRow } from "./transcript.js";
export type { TranscriptOrigin, TranscriptQuery } from "./transcript.js";
export { ENVIRONMENT_MEMBERS, environmentView } from "./environment.js";
export { DEFAULT_DEBUG_BUNDLE_LIMITS, DebugBundle } from "./bundle.js";
export type { BundleSession, BundleSessionEntry, DebugBundleLimits, OpenDebugBundleOptions } from "./bundle.js";
export { bundleMetaView } from "./meta.js";
export { groupBundles, groupIdOf, previousRun, sameRequest } from "./grouping.js";
export type { GroupKeyInput } from "./grouping.js";
export { compareBundles, compareMetrics } from "./compare.js";
export { BUNDLE_SEARCH_SCOPES, searchBundles } from "./search.js";
export type { BundleSearchOptions, BundleSearchScope } from "./search.js";
export { BUNDLE_PANELS, bundleDigestParts, bundlePanels, bundleRunParts, transcriptFailures } from "./run-parts.js";
export type { BundlePanelId, BundleRunParts } from "./run-parts.js";

// The response schemas (schemas.ts) are not exported here: only the route table reads them
// (shared/viewer/routes/route-schemas.ts), and a bundler keeps a barrel's schema modules (their
// top-level `Type.*` calls, and TypeBox with them) for any one name imported through it, so
// the web app's bundle readers would carry them into the standalone page that never checks one.
