/**
 * Live reload: the server's change events invalidate the cache by prefix (a changed session
 * file refreshes everything under it; diffs are refreshed whole). Queries refetch in the
 * background and keep their data meanwhile, so the user keeps their place.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { ChangeNotice } from "../api/api.js";
import { useApi } from "../api/context.js";
import { keys } from "../api/keys.js";
import { showToast } from "../state/toasts.js";

/** The query-key prefixes a change notice makes stale (null: everything). */
export function stalePrefixes(notice: ChangeNotice | null): (readonly unknown[])[] {
  if (notice === null || notice.archives.length > 0) return [keys.all];
  const files = [...notice.added, ...notice.changed, ...notice.removed];
  // What spans the runs (the run list, the eval and its groups, the newest run) and every
  // comparison, then each changed file with everything asked of it.
  return [keys.files(), keys.routeName("runs"), keys.routeName("failures"), keys.routeName("failureOccurrences"), keys.routeName("run"), keys.diffs(), ...files.map((file) => keys.sessionFile(file))];
}

export function useLiveReload(): void {
  const api = useApi();
  const client = useQueryClient();
  useEffect(() => {
    return api.subscribe((notice) => {
      for (const queryKey of stalePrefixes(notice)) void client.invalidateQueries({ queryKey });
      if (notice !== null) {
        const count = notice.added.length + notice.changed.length + notice.removed.length + notice.archives.length;
        if (count > 0) showToast(`Reloaded: ${count} file${count === 1 ? "" : "s"} changed`);
      }
    });
  }, [api, client]);
}
