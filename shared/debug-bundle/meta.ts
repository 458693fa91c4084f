/**
 * WINK's bundle `/api/meta` (`bundle_id`, `status`, `request_id`, `has_transcript`…) merged
 * with our snapshot `/api/meta` of the bundle's selected session line, so a script written
 * for either viewer finds its fields. Without a session line the snapshot fields are null.
 */
import type { SnapshotMetaView } from "../viewer/types.js";
import type { DebugBundle } from "./bundle.js";
import { BUNDLE_MEMBERS } from "./layout.js";
import type { BundleMetaView } from "./types.js";

/** `path`: the bundle as the client names it (never a host path). */
export function bundleMetaView(bundle: DebugBundle, path: string, snapshot: SnapshotMetaView | null): BundleMetaView {
  const { manifest } = bundle;
  return {
    bundle_id: manifest.bundleId,
    created_at: manifest.createdAt,
    // WINK counts transcript rows; WINK writes transcript.jsonl whenever there are entries.
    has_transcript: bundle.has(BUNDLE_MEMBERS.transcript) || bundle.has(BUNDLE_MEMBERS.logs),
    path,
    request_id: manifest.requestId,
    session_id: snapshot?.session_id ?? manifest.sessionId,
    status: manifest.status,
    validation_error: snapshot?.validation_error ?? null,
    slices: snapshot?.slices ?? [],
    version: snapshot?.version ?? null,
    line_number: snapshot?.line_number ?? null,
    tags: snapshot?.tags ?? {},
    parent_id: snapshot?.parent_id ?? null,
    children_ids: snapshot?.children_ids ?? [],
  };
}
