/**
 * Every test file (vitest `setupFiles`) gets its own `XDG_CACHE_HOME`, removed after it: the
 * run index a CLI or app keeps in the user's cache directory (server/library/run-index-store.ts)
 * never lands in the real home, and one file's cache never answers another's runs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

const home = mkdtempSync(path.join(os.tmpdir(), "wink-test-cache-"));
process.env.XDG_CACHE_HOME = home;
afterAll(() => rmSync(home, { recursive: true, force: true }));
