/**
 * Live reload: the server's change events invalidate the cache by prefix (a changed session
 * file refreshes everything under it; diffs are refreshed whole). An `indexed` event (session
 * files indexed in the background are ready) refreshes the run lists alone: the eval asks
 * its own run index again while it grows, and a run or a snapshot already answered is
 * answered the same (refreshing everything asked the eval's answer, the opened run and its
 * meta again several times in a warm start's first seconds). Queries refetch in the
 * background and keep their data meanwhile, so the user keeps their place.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { LiveNotice } from "../api/api.js";
import { useApi } from "../api/context.js";
import { keys } from "../api/keys.js";
import { showToast } from "../state/toasts.js";

/** The query-key prefixes a change notice makes stale (null: everything). */
export function stalePrefixes(notice: LiveNotice): (readonly unknown[])[] {
  // The run lists (the sidebar's pages, the compare view's pickers) and the newest run.
  if (notice === "indexed") return [keys.files(), keys.routeName("runs"), keys.routeName("run")];
  if (notice === null || notice.archives.length > 0) return [keys.all];
  const files = [...notice.added, ...notice.changed, ...notice.removed];
  // What spans the runs (the run list, the eval, its groups and its runs, the newest run) and
  // every comparison, then each changed file with everything asked of it.
  return [keys.files(), keys.routeName("runs"), keys.routeName("failures"), keys.routeName("failureOccurrences"), keys.routeName("evalRuns"), keys.routeName("run"), keys.diffs(), ...files.map((file) => keys.sessionFile(file))];
}

export function useLiveReload(): void {
  const api = useApi();
  const client = useQueryClient();
  useEffect(() => {
    return api.subscribe((notice) => {
      for (const queryKey of stalePrefixes(notice)) void client.invalidateQueries({ queryKey });
      if (notice !== null && notice !== "indexed") {
        const count = notice.added.length + notice.changed.length + notice.removed.length + notice.archives.length;
        if (count > 0) showToast(`Reloaded: ${count} file${count === 1 ? "" : "s"} changed`);
      }
    });
  }, [api, client]);
}
