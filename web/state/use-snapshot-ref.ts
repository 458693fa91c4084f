import { useMemo } from "react";
import type { SnapshotRef } from "../api/api.js";

/**
 * The same object for as long as `ref` names the same snapshot. View state rebuilds its refs on
 * every navigation; effects and memos keyed on this one run once per snapshot, not once per URL change.
 */
export function useSnapshotRef(ref: SnapshotRef | null | undefined): SnapshotRef | null {
  const file = ref?.file;
  const line = ref?.line;
  return useMemo(() => (file === undefined || line === undefined ? null : { file, line }), [file, line]);
}
