/**
 * Runs `work` once the browser has an idle moment after the current frame, or after
 * `timeoutMs` at the latest. Start-up extras (other views' chunks, slice pages) go through
 * this so they never compete with the first view's render: on a busy machine a fixed timer
 * fired while the landing page was still being drawn and delayed it by the chunks' compile.
 * Returns a cancel function. Browsers without requestIdleCallback get a timer.
 */
export function whenIdle(work: () => void, timeoutMs: number): () => void {
  if (typeof window.requestIdleCallback === "function") {
    const handle = window.requestIdleCallback(work, { timeout: timeoutMs });
    return () => window.cancelIdleCallback(handle);
  }
  const timer = window.setTimeout(work, Math.min(timeoutMs, 1200));
  return () => window.clearTimeout(timer);
}
