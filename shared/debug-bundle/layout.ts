/**
 * Where things live in a WINK debug bundle (`{bundle_id}_{timestamp}.zip`, one root folder
 * `debug_bundle/`), and how to tell a bundle from a workspace archive by its first bytes.
 * Browser-safe.
 */

/** The single root folder of every entry WINK's `BundleWriter` writes. */
export const BUNDLE_ROOT = "debug_bundle/";

/** Members, relative to the root, that the reader knows. */
export const BUNDLE_MEMBERS = {
  manifest: "manifest.json",
  readme: "README.txt",
  sessionBefore: "session/before.jsonl",
  sessionAfter: "session/after.jsonl",
  logs: "logs/app.jsonl",
  transcript: "transcript.jsonl",
  requestInput: "request/input.json",
  requestOutput: "request/output.json",
  error: "error.json",
  metrics: "metrics.json",
  config: "config.json",
  runContext: "run_context.json",
  eval: "eval.json",
  promptOverrides: "prompt_overrides.json",
} as const;

export type BundleMemberName = (typeof BUNDLE_MEMBERS)[keyof typeof BUNDLE_MEMBERS];

/** Folder of the environment capture (system, python, git…). */
export const ENVIRONMENT_PREFIX = "environment/";
/** Folder of the workspace capture. */
export const FILESYSTEM_PREFIX = "filesystem/";

/**
 * The virtual line numbers a bundle's session gets in the viewer: the bundle is shown as a
 * session file of two lines, the state before the run and after it. Numbers are fixed, so a
 * deep link to "after" stays valid whether or not "before" exists.
 */
export const SESSION_LINES = [
  { lineNumber: 1, member: BUNDLE_MEMBERS.sessionBefore, label: "before" },
  { lineNumber: 2, member: BUNDLE_MEMBERS.sessionAfter, label: "after" },
] as const;

const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const LOCAL_HEADER_SIZE = 30;
const ROOT_BYTES = new TextEncoder().encode(BUNDLE_ROOT);

/** Bytes to read from the start of a `.zip` for `looksLikeDebugBundle`. */
export const BUNDLE_SNIFF_BYTES = LOCAL_HEADER_SIZE + ROOT_BYTES.length;

/**
 * True when the first local header of a ZIP names an entry under `debug_bundle/`: every entry
 * of a bundle does, no workspace archive does. A cheap guess for listing a folder (one small
 * read per `.zip`); opening the bundle validates the whole central directory.
 */
export function looksLikeDebugBundle(head: Uint8Array): boolean {
  if (head.length < BUNDLE_SNIFF_BYTES) return false;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (view.getUint32(0, true) !== LOCAL_HEADER_SIGNATURE) return false;
  if (view.getUint16(26, true) < ROOT_BYTES.length) return false;
  for (let i = 0; i < ROOT_BYTES.length; i++) if (head[LOCAL_HEADER_SIZE + i] !== ROOT_BYTES[i]) return false;
  return true;
}

/** The zip entry name of a member (`error.json` → `debug_bundle/error.json`). */
export function memberEntryName(member: string): string {
  return `${BUNDLE_ROOT}${member}`;
}
