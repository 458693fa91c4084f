/**
 * The order of the sidebar's run list: newest first, as listed, except that the runs of one
 * request (a bundle's retries and iterations, `/api/bundles/groups`) sit together, where the
 * newest of them is, so a retry's failed attempt is next to its successful sibling rather
 * than wherever its time puts it. Files that are not sessions (`not_session`) go last.
 */

/** `runs` (newest first) regrouped; `groupOf` names a run's request group, or null when it is alone. */
export function groupedRunOrder<T extends { readonly source: { readonly path: string }; readonly state: string }>(runs: readonly T[], groupOf: (path: string) => string | null): { runs: T[]; others: T[] } {
  const members = new Map<string, T[]>();
  for (const run of runs) {
    const group = run.state === "not_session" ? null : groupOf(run.source.path);
    if (group !== null) members.set(group, [...(members.get(group) ?? []), run]);
  }
  const ordered: T[] = [];
  const placed = new Set<string>();
  for (const run of runs) {
    if (run.state === "not_session") continue;
    const group = groupOf(run.source.path);
    if (group === null) ordered.push(run);
    else if (!placed.has(group)) {
      placed.add(group);
      ordered.push(...(members.get(group) ?? [run]));
    }
  }
  return { runs: ordered, others: runs.filter((run) => run.state === "not_session") };
}
