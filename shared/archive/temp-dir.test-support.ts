/** A fresh temporary directory per test (vitest hooks), removed afterwards. */
import { afterEach, beforeEach } from "vitest";
import { makeTempDir } from "./archive.test-support.js";

/** Registers beforeEach/afterEach hooks; call the returned function inside a test for the directory's path. */
export function useTempDir(): () => string {
  let current: { path: string; cleanup: () => Promise<void> } | null = null;
  beforeEach(async () => {
    current = await makeTempDir();
  });
  afterEach(async () => {
    await current?.cleanup();
    current = null;
  });
  return () => {
    if (current === null) throw new Error("useTempDir: only available inside a test");
    return current.path;
  };
}
