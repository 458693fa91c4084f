/**
 * The public surface of `wink-debug/shared` and of the browser-safe entry (values and types),
 * listed so that any API change shows up in review (isomorphic-git's test-exports idea). When you add or
 * remove an export on purpose, update the snapshot: `npx vitest run shared/index.test.ts -u`.
 */
import { readFileSync } from "node:fs";
import ts from "typescript";
import { expect, it } from "vitest";
import * as browser from "./browser.js";
import * as shared from "./index.js";
import * as viewer from "./viewer-model.js";

/**
 * The type-only names an entry module exports, read from its source: each is listed by name
 * (`export type { A, B } from …`; tsc checks that every one resolves), never re-exported whole.
 */
function typeExports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(new URL(file, import.meta.url), "utf8"), ts.ScriptTarget.Latest);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    const clause = statement.exportClause;
    if (clause === undefined || !ts.isNamedExports(clause)) throw new Error(`${file}: \`${statement.getText(source)}\` re-exports a module whole: list the names`);
    for (const element of clause.elements) if (statement.isTypeOnly || element.isTypeOnly) names.push(element.name.text);
  }
  return names.sort();
}

function describeExports(module: Record<string, unknown>): string[] {
  return Object.keys(module)
    .sort()
    .map((name) => `${name}: ${typeof module[name]}`);
}

it("keeps the list of public exports", () => {
  expect(describeExports(shared)).toMatchSnapshot();
});

it("keeps the list of the viewer model's exports (wink-debug/viewer), none of them the library's", () => {
  expect(describeExports(viewer)).toMatchSnapshot();
  expect(typeExports("./viewer-model.ts")).toMatchSnapshot();
  const libraryTypes = new Set(typeExports("./index.ts"));
  for (const name of Object.keys(viewer)) expect(shared, name).not.toHaveProperty(name);
  expect(typeExports("./viewer-model.ts").filter((name) => libraryTypes.has(name))).toEqual([]);
});

it("keeps the viewer's view types out of the agent library", () => {
  expect(typeExports("./index.ts").filter((name) => name.endsWith("View"))).toEqual([]);
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

it("keeps the list of public types, each named on purpose", () => {
  expect(typeExports("./index.ts")).toMatchSnapshot();
});

it("keeps internal types out of the public list", () => {
  // Types of the modules' own machinery: the viewer's page builders, tree-apply steps, driver
  // and reader internals. Reachable through their module paths, not the package root.
  const types = new Set(typeExports("./index.ts"));
  for (const name of ["IndexedSnapshotLine", "SlicePageOptions", "FileDiffPlan", "TreeApplyStep", "TreeEdit", "HostDriverOptions", "PodmanExecDriverOptions", "LineText", "EnvelopeCheck", "SessionFileOpener", "BlockStore", "RunExtraFailure", "Sha256"]) {
    expect(types.has(name), name).toBe(false);
  }
});

it("keeps the browser-safe types a subset of the public ones", () => {
  const types = new Set(typeExports("./index.ts"));
  const browserTypes = typeExports("./browser.ts");
  expect(browserTypes.length).toBeGreaterThan(40);
  expect(browserTypes.filter((name) => !types.has(name))).toEqual([]);
});
