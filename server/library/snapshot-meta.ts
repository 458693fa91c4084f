/**
 * `/api/meta` of a file: the snapshot meta of the selected line, or for a WINK debug bundle
 * WINK's bundle meta merged with the snapshot meta of the bundle's session line. Used by the
 * legacy routes and by the CLI's first stage (which answers the first `/api/meta` before the
 * routes are loaded).
 */
import { bundleMetaView } from "../../shared/debug-bundle/index.js";
import type { BundleMetaView } from "../../shared/debug-bundle/index.js";
import { snapshotMeta } from "../../shared/viewer/index.js";
import type { SnapshotMetaView } from "../../shared/viewer/index.js";
import type { Selection, SnapshotSelector, ViewerState } from "./viewer-state.js";
import { indexedLine } from "./viewer-state.js";

/** The snapshot meta of one resolved line. */
export const metaOf = (selection: Selection): SnapshotMetaView => snapshotMeta(selection.record.path, indexedLine(selection.entry));

/** The `/api/meta` answer for `selector` (`selection`: the line already resolved, if it is). */
export async function metaFor(state: ViewerState, selector: SnapshotSelector, selection: Selection | null = null): Promise<SnapshotMetaView | BundleMetaView> {
  if (!state.isBundle(selector.file)) return metaOf(selection ?? (await state.resolve(selector)));
  const { record, bundle } = await state.bundle(selector);
  const index = await state.directory.ensureIndexed(record);
  const line = index.lines.length === 0 ? null : (selection ?? (await state.resolve({ ...selector, file: record.path })));
  return bundleMetaView(bundle, record.path, line === null ? null : metaOf(line));
}
