import { startTransition, useEffect, useState } from "react";

/**
 * False until the first view has been on screen for one frame (once `shown` is true), then
 * true for good. Parts the first screen does not need (the sidebar's run list, the snapshot's
 * metadata) wait for it, so the landing page's failures are drawn before them. The switch
 * is a transition: their render yields to the browser instead of holding the frame.
 */
export function useAfterFirstPaint(shown: boolean): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    if (!shown || painted) return;
    let timer = 0;
    // The frame after the commit is the one that paints it; a task queued from it runs after.
    const frame = requestAnimationFrame(() => {
      timer = window.setTimeout(() => startTransition(() => setPainted(true)), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      window.clearTimeout(timer);
    };
  }, [shown, painted]);
  return painted;
}
