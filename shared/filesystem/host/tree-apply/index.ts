/**
 * Crash-safe application of a set of tree changes to a host directory (archive import,
 * snapshot restore): after a crash at any moment, the workspace ends up either exactly as
 * before or exactly as intended — never in between.
 *
 * How:
 * 1. **Stage.** New content is written into a staging directory on the *same filesystem* as
 *    the root (so moving it in is a rename). By default it lives in the state directory
 *    (outside the workspace); when that is another filesystem (or renames across it fail, as
 *    between bind mounts) it is a hidden `.wink-apply-<pid>-<random>` directory in the root,
 *    which the host driver hides from list/walk and refuses to touch.
 * 2. **Validate** every change against the current tree (kinds, parents, no symlinks on the
 *    way). Nothing in the workspace has changed yet, so any failure up to here just discards
 *    the staging: the workspace is untouched.
 * 3. **Commit**: a journal naming every rename is written to the state directory (fsynced
 *    when durable), and linked into place under a name derived from the root. From this
 *    point the change is decided and will be completed.
 * 4. **Apply**, in phases whose every step can be repeated: deletions move the old entry
 *    into the staging `trash/` (the journal is then replaced by one saying this phase is
 *    over: one file, so no state where a marker outlives its journal), then
 *    directories are created, staged entries are renamed into place, modes are set.
 * 5. The journal is removed (the change is complete), then staging and trash are deleted.
 *
 * `recoverTreeChanges(root)` — run by the host driver before its first operation — finds a
 * journal whose process is gone and repeats step 4 (roll forward), and removes stagings that
 * were never committed (roll back: the workspace never saw them).
 *
 * The root directory itself is never replaced (its inode stays, so a bind mount of it keeps
 * working). Every path inside the root is reached through the confined descriptor walk of
 * `../io/confined.ts`: a symlink planted in the workspace never redirects a rename outside it.
 * One apply per root at a time; concurrent writers to the workspace during an apply are not
 * coordinated with (their changes may be moved to the trash or kept).
 *
 * The file operations are synchronous calls on descriptors held for one phase (`DirTree`):
 * a restore of a few files is a few hundred tiny syscalls, and a thread-pool round trip
 * for each (plus re-opening every directory from the root for each path) cost far more
 * than the syscalls themselves. Long phases give the event loop a turn every
 * `YIELD_EVERY` operations. A descriptor held for a phase is the same confinement as one
 * held for one operation: it names the directory inode reached without following links
 * (a directory moved elsewhere mid-phase is the known limit of `../io/confined.ts`, for longer).
 */
// The modules of this folder, by concern: types.ts (changes, options, results), state.ts (the
// state directory and this process's registries), dir-tree.ts (confined locations and held
// descriptors), staging.ts (step 1), plan.ts and probe.ts (step 2), journal.ts (step 3),
// run-journal.ts (step 4, shared by commit and recovery), apply.ts (the entry points that
// commit), recover.ts (the crash recovery).
export { applyStagedChanges, applyTreeChanges, replaceTreeContents } from "./apply.js";
export { hasPendingTreeChanges, recoverTreeChanges } from "./recover.js";
export { TreeStaging, createTreeStaging } from "./staging.js";
export { defaultTreeApplyStateDir } from "./state.js";
export { STAGING_PREFIX, type TreeApplyOptions, type TreeApplyResult, type TreeApplyStep, type TreeChange, type TreeEdit, type TreeRecoveryResult } from "./types.js";
