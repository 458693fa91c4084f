/**
 * The run the landing page opens (`/api/run` without a file, and the in-browser data layer
 * alike). A reviewer opens a folder for its failure, and the newest run that loads is often
 * the successful retry of the one that failed: so, among the newest
 * {@link LANDING_LOOKAHEAD_RUNS} that load, the newest run that failed as a whole (a bundle
 * with `error.json`), else the newest with a failed call, else the newest run that loads.
 */

/** How many of the newest runs the landing page looks through for a failed one. */
export const LANDING_LOOKAHEAD_RUNS = 20;

export interface LandingProbe<T> {
  /** Whether the run holds a loadable line (a run that does not is never opened). */
  loads(candidate: T): Promise<boolean>;
  /** Whether the run failed as a whole: cheap, asked of every run looked at. */
  failed(candidate: T): Promise<boolean>;
  /** Whether a call or an event of the run failed: builds the run, asked while there is time left. */
  failedCalls(candidate: T): Promise<boolean>;
  /** A run not worth looking at (a remote object not yet read); it may still be the newest that loads. */
  skip?(candidate: T): boolean;
  /** False once the landing page has waited long enough (on runs read for `loads`, then built for `failedCalls`): what was found by then is taken. */
  timeLeft?(): boolean;
}

/** The landing run of `newestFirst` (newest first), or null when none loads. */
export async function landingRun<T>(newestFirst: readonly T[], probe: LandingProbe<T>): Promise<T | null> {
  const loadable: T[] = [];
  for (const candidate of newestFirst) {
    if (loadable.length >= LANDING_LOOKAHEAD_RUNS || (loadable.length > 0 && probe.timeLeft?.() === false)) break;
    if (loadable.length > 0 && probe.skip?.(candidate) === true) continue;
    if (await probe.loads(candidate)) loadable.push(candidate);
  }
  for (const candidate of loadable) if (await probe.failed(candidate)) return candidate;
  for (const candidate of loadable) {
    if (probe.timeLeft?.() === false) break;
    if (await probe.failedCalls(candidate)) return candidate;
  }
  return loadable[0] ?? null;
}
