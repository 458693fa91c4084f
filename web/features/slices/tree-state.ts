/**
 * Which nodes of the item trees are open: a default depth ("expand to depth N") plus
 * explicit choices per path, which survive re-renders and scrolling (virtualised cards
 * unmount and remount).
 */
import { useCallback, useMemo, useState } from "react";

export interface TreeState {
  isOpen(path: string, depth: number): boolean;
  set(path: string, open: boolean): void;
  setMany(paths: readonly string[], open: boolean): void;
  /** Resets choices and opens nodes shallower than `depth` (Infinity: all, 0: none). */
  reset(depth: number): void;
  readonly depth: number;
  /** Changes whenever any node opens or closes (virtualised rows re-measure on it). */
  readonly version: number;
}

export function useTreeState(initialDepth: number): TreeState {
  const [state, setState] = useState<{ depth: number; choices: Map<string, boolean>; version: number }>(() => ({ depth: initialDepth, choices: new Map(), version: 0 }));
  const set = useCallback((path: string, open: boolean) => {
    setState((previous) => {
      const choices = new Map(previous.choices);
      choices.set(path, open);
      return { ...previous, choices, version: previous.version + 1 };
    });
  }, []);
  const setMany = useCallback((paths: readonly string[], open: boolean) => {
    setState((previous) => {
      const choices = new Map(previous.choices);
      for (const path of paths) choices.set(path, open);
      return { ...previous, choices, version: previous.version + 1 };
    });
  }, []);
  const reset = useCallback((depth: number) => setState((previous) => ({ depth, choices: new Map(), version: previous.version + 1 })), []);
  return useMemo(
    () => ({
      isOpen: (path: string, depth: number) => state.choices.get(path) ?? depth < state.depth,
      set,
      setMany,
      reset,
      depth: state.depth,
      version: state.version,
    }),
    [state, set, setMany, reset],
  );
}
