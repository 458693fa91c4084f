// Public API of the host backend (re-exported by shared/filesystem/index.ts).
export { HostFilesystem, type HostFilesystemOptions } from "./host-filesystem.js";
export { HostDriver, type HostDriverOptions } from "./host-driver.js";
export {
  STAGING_PREFIX,
  TreeStaging,
  applyStagedChanges,
  applyTreeChanges,
  createTreeStaging,
  defaultTreeApplyStateDir,
  hasPendingTreeChanges,
  recoverTreeChanges,
  replaceTreeContents,
  type TreeApplyOptions,
  type TreeApplyResult,
  type TreeApplyStep,
  type TreeChange,
  type TreeEdit,
  type TreeRecoveryResult,
} from "./tree-apply/index.js";
