/**
 * Retrying a store request: bounded attempts, exponential backoff with full jitter (AWS's
 * recommendation: spreads clients that were throttled together), and the store's own
 * Retry-After when it gives one — unless that asks for a longer wait than we allow, in which
 * case we stop at once rather than hang, and the error says how long the store asked for.
 */

export interface RetryPolicy {
  /** Attempts in all, the first included (1 = never retry). */
  readonly attempts: number;
  /** Backoff before the second attempt; doubles for each further one (before jitter). */
  readonly baseDelayMs: number;
  /** Longest wait between two attempts. */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 4, baseDelayMs: 200, maxDelayMs: 5_000 };

/**
 * How long to wait before attempt `attempt + 1`, or null when no further attempt should be
 * made (out of attempts, or the store asked for a longer wait than `maxDelayMs`).
 */
export function retryDelay(policy: RetryPolicy, attempt: number, retryAfterMs: number | null, random: () => number = Math.random): number | null {
  if (attempt >= policy.attempts) return null;
  if (retryAfterMs !== null) return retryAfterMs <= policy.maxDelayMs ? retryAfterMs : null;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
