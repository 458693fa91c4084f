/**
 * The served directory's side of workspace resolution (`shared/viewer/workspace-resolve.ts`
 * holds the computation, shared with the web app's local API): archives are looked up next
 * to the session file in the served directory and opened through the archive cache.
 */
import path from "node:path";
import type { SessionSnapshot, EnvelopeSummary } from "../../shared/session/index.js";
import type { ResolvedWorkspace } from "../../shared/viewer/index.js";
import { resolveWorkspace as resolveWorkspaceOf } from "../../shared/viewer/index.js";
import type { ArchiveCache } from "./archive-cache.js";
import type { ServedFiles } from "./served-files.js";

export type { ResolvedWorkspace } from "../../shared/viewer/index.js";
export { bundleWorkspace, workspaceMetaView as filesystemMeta } from "../../shared/viewer/index.js";

const hasSlice = (summary: EnvelopeSummary, name: string): boolean => summary.slices.some((slice) => slice.displayName === name || slice.itemDisplayName === name);

/**
 * Resolves the workspace of one line of the session file at `sessionFile` (relative to the
 * served root). `load` parses the line in full; it is only called when the line has a
 * `FilesystemSnapshotRef` or `VirtualFileSystem` slice.
 */
export async function resolveWorkspace(store: ServedFiles, sessionFile: string, summary: EnvelopeSummary, load: () => Promise<SessionSnapshot>, archives: ArchiveCache): Promise<ResolvedWorkspace> {
  const directory = path.posix.dirname(sessionFile);
  const relative = (name: string): string => (directory === "." ? name : `${directory}/${name}`);
  const snapshot = hasSlice(summary, "FilesystemSnapshotRef") || hasSlice(summary, "VirtualFileSystem") ? await load() : null;
  return resolveWorkspaceOf(path.posix.basename(sessionFile), snapshot, {
    missing: "is not next to the session file",
    status: async (name) => store.archiveStatus(relative(name)),
    open: (name) => archives.source(store.idOf(relative(name)), name),
  });
}
