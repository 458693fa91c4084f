/**
 * The public surface of `wink-debug/shared` and of the browser-safe entry, listed so that
 * any API change shows up in review (isomorphic-git's test-exports idea). When you add or
 * remove an export on purpose, update the snapshot: `npx vitest run shared/index.test.ts -u`.
 */
import { expect, it } from "vitest";
import * as browser from "./browser.js";
import * as shared from "./index.js";

function describeExports(module: Record<string, unknown>): string[] {
  return Object.keys(module)
    .sort()
    .map((name) => `${name}: ${typeof module[name]}`);
}

it("keeps the list of public exports", () => {
  expect(describeExports(shared)).toMatchSnapshot();
});

it("keeps the modules' shared helpers internal", () => {
  // Reachable through their module paths (server/ and web/ import them there), not the package root.
  for (const name of ["STAGING_PREFIX", "TreeStaging", "createTreeStaging", "lineBody", "decodeLineBody", "toBase64", "HostDriver", "MemoryDriver", "NdjsonConnection", "slicePage"]) {
    expect(shared, name).not.toHaveProperty(name);
  }
});

it("keeps the list of browser-safe exports, all of which are also public", () => {
  const names = Object.keys(browser);
  expect(describeExports(browser)).toMatchSnapshot();
  for (const name of names) expect(shared, name).toHaveProperty(name);
});
