/**
 * One page of a run list, filtered by name and date: what `/api/runs` answers and what the
 * in-browser data layer computes the same way. Runs come newest first; the filter keeps
 * those whose path contains `q` (case-insensitively) and whose time lies in
 * [`since`, `until`] (ISO 8601 dates or date-times; `until` a bare date includes that day).
 */
import { InvalidArgumentError } from "../errors.js";

export interface RunPageQuery {
  readonly offset?: number | undefined;
  /** Runs on the page (default: all the filter keeps). */
  readonly limit?: number | undefined;
  readonly q?: string | undefined;
  readonly since?: string | undefined;
  readonly until?: string | undefined;
}

export interface RunPage<T> {
  readonly page: T[];
  /** Runs the filter kept (all of them without a filter). */
  readonly matched: number;
  /** Every run the filter kept, the page's and the others (`matched` of them). */
  readonly kept: readonly T[];
  readonly offset: number;
}

const DAY_MS = 86_400_000;

/**
 * A date bound as epoch milliseconds, or null when absent; `EINVAL` naming the parameter
 * (`name`: `since`, or a CLI's `--since`) when it does not parse. `endOfDay`: a bare date
 * stands for the last millisecond of its day (an `until`).
 */
export function timeBound(value: string | undefined, name: string, endOfDay: boolean): number | null {
  if (value === undefined || value === "") return null;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new InvalidArgumentError(`${name} must be an ISO 8601 date or date-time, got ${value}`, { [name]: value });
  return endOfDay && /^\d{4}-\d{2}-\d{2}$/.test(value) ? ms + DAY_MS - 1 : ms;
}

/** The page of `newestFirst` that `query` asks for; `describe` gives each run's path and time (epoch ms). */
export function pageOfRuns<T>(newestFirst: readonly T[], describe: (run: T) => { readonly path: string; readonly timeMs: number }, query: RunPageQuery = {}): RunPage<T> {
  const from = timeBound(query.since, "since", false);
  const to = timeBound(query.until, "until", true);
  const needle = query.q === undefined || query.q === "" ? null : query.q.toLowerCase();
  const matched =
    needle === null && from === null && to === null
      ? [...newestFirst]
      : newestFirst.filter((run) => {
          const { path, timeMs } = describe(run);
          return (needle === null || path.toLowerCase().includes(needle)) && (from === null || timeMs >= from) && (to === null || timeMs <= to);
        });
  const offset = query.offset ?? 0;
  return { page: matched.slice(offset, query.limit === undefined ? undefined : offset + query.limit), matched: matched.length, kept: matched, offset };
}
