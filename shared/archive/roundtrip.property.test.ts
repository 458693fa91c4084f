/**
 * Property: any tree (binary content, unicode names, empty files and directories, exec
 * bits) survives writeArchive → extractArchive unchanged.
 */
import nodePath from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecordingTransaction, makeTempDir, memorySource } from "./archive.test-support.js";
import { extractArchive } from "./extract.node.js";
import { writeArchive } from "./writer.node.js";

const segment = fc
  .array(fc.constantFrom("a", "b", "Z", "0", "-", "_", " ", ".", "é", "ß", "日", "本", "🚀", "Ω", "~", "+", "="), { minLength: 1, maxLength: 10 })
  .map((chars) => chars.join(""))
  .filter((s) => s !== "." && s !== ".." && s.trim() !== "" && !/git/i.test(s));

const node = fc.record({
  segments: fc.array(segment, { minLength: 1, maxLength: 4 }),
  content: fc.option(fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.string({ unit: "grapheme", maxLength: 200 }).map((s) => new TextEncoder().encode(s)), fc.constant(new Uint8Array(0))), { nil: null }),
  mode: fc.constantFrom(0o644, 0o755, 0o600, 0o700),
});

interface TreeNode {
  path: string;
  content: Uint8Array | null;
  mode: number;
}

/** Keep a consistent tree: no path both a file and a directory (or below a file); parents implied. */
function toTree(nodes: { segments: string[]; content: Uint8Array | null; mode: number }[]): TreeNode[] {
  const byPath = new Map<string, TreeNode>();
  const directories = new Set<string>();
  for (const { segments, content, mode } of nodes) {
    const path = segments.join("/");
    const parents = segments.slice(0, -1).map((_, i) => segments.slice(0, i + 1).join("/"));
    if (byPath.has(path) || parents.some((p) => byPath.get(p)?.content != null)) continue;
    if (content !== null && directories.has(path)) continue;
    byPath.set(path, { path, content, mode: content === null ? 0o755 : mode });
    for (const parent of parents) {
      directories.add(parent);
      if (!byPath.has(parent)) byPath.set(parent, { path: parent, content: null, mode: 0o755 });
    }
    if (content === null) directories.add(path);
  }
  return [...byPath.values()];
}

describe("writeArchive → extractArchive", () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    dir = await makeTempDir();
  });
  afterAll(async () => {
    await dir.cleanup();
  });

  it("gives back the same tree", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(node, { maxLength: 25 }), async (nodes) => {
        const tree = toTree(nodes);
        const archive = nodePath.join(dir.path, `t${run++}.fs.zip`);
        await writeArchive(archive, memorySource(tree));
        const tx = new RecordingTransaction();
        await extractArchive(archive, tx);

        const files = tree.filter((n) => n.content !== null);
        const nonEmpty = new Set(tree.flatMap((n) => n.path.split("/").slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join("/"))));
        const emptyDirectories = tree.filter((n) => n.content === null && !nonEmpty.has(n.path)).map((n) => n.path);

        expect(new Map([...tx.files()].map(([path, rec]) => [path, { data: Buffer.from(rec.data).toString("hex"), mode: rec.mode }]))).toEqual(
          new Map(files.map((f) => [f.path, { data: Buffer.from(f.content as Uint8Array).toString("hex"), mode: f.mode }])),
        );
        expect([...tx.nodes].filter(([, rec]) => rec.kind === "directory").map(([path]) => path).sort()).toEqual(emptyDirectories.sort());
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
