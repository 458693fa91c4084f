/**
 * What every `FilesystemDriver` that changes trees in place needs the same way: names it
 * keeps for its own staging, and the crash recovery it runs before the first operation.
 */
import { PermissionDeniedError } from "../errors.js";
import { displayPath } from "./paths.js";

/** Names starting with `prefix` are the driver's own (staging of a tree change): never shown, never written. */
export class ReservedNames {
  constructor(readonly prefix: string) {}

  has(path: string): boolean {
    return path.startsWith(this.prefix);
  }

  /** Refuses `action` on a reserved path (a write there could corrupt a tree change in progress). */
  refuse(path: string, action: string): void {
    if (this.has(path)) throw new PermissionDeniedError(path, `Refusing to ${action} ${displayPath(path)}: reserved for tree changes in progress`, { reason: "reserved" });
  }
}

/**
 * `task` run once, shared by every caller; a failed run is forgotten so the next call tries
 * again (recovery that failed on a transient error must not poison the driver for good).
 */
export function onceUntilDone(task: () => Promise<unknown>): () => Promise<void> {
  let running: Promise<void> | null = null;
  return () => {
    running ??= task().then(
      () => undefined,
      (error: unknown) => {
        running = null;
        throw error;
      },
    );
    return running;
  };
}
