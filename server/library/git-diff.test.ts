// The git fallback gives the same hunks as jsdiff, and is what the file diff uses once
// jsdiff runs out of time.
import { describe, expect, it } from "vitest";
import { diffSourceFile, diffText, virtualFileSource } from "../../shared/viewer/index.js";
import type { VirtualFile } from "../../shared/session/index.js";
import { gitDiffHunks } from "./git-diff.js";

const file = (path: string, content: string): VirtualFile => ({ path, segments: path.split("/"), content, sizeBytes: content.length, version: 1, createdAt: null, updatedAt: null, encoding: "utf-8" });

describe("gitDiffHunks", () => {
  it("matches jsdiff on a simple change", async () => {
    const base = "a\nb\nc\nd\ne\nf\ng\nh\n";
    const target = "a\nb\nC\nd\ne\nf\ng\nh\ni\n";
    const jsdiff = diffText(base, target);
    expect(jsdiff.status).toBe("ok");
    expect(await gitDiffHunks(base, target)).toEqual(jsdiff.status === "ok" ? jsdiff.hunks : null);
  });

  it("is used by the file diff when jsdiff runs out of time", async () => {
    const lines = (seed: number) => Array.from({ length: 20_000 }, (_, i) => `${seed}:${(i * 7919 + seed) % 100_003}`).join("\n") + "\n";
    const base = virtualFileSource([file("big.txt", lines(1))]);
    const target = virtualFileSource([file("big.txt", lines(2))]);
    const view = await diffSourceFile(base, target, "big.txt", { timeoutMs: 1, fallback: gitDiffHunks });
    expect(view.engine).toBe("git");
    const changed = view.hunks.flatMap((hunk) => hunk.lines);
    expect(changed.filter((line) => line.startsWith("-"))).toHaveLength(20_000);
    expect(changed.filter((line) => line.startsWith("+"))).toHaveLength(20_000);
  });

  it("reports that no diff could be computed when there is no fallback", async () => {
    const lines = (seed: number) => Array.from({ length: 20_000 }, (_, i) => `${seed}:${i * seed}`).join("\n");
    const view = await diffSourceFile(virtualFileSource([file("x", lines(1))]), virtualFileSource([file("x", lines(3))]), "x", { timeoutMs: 1 });
    expect(view).toMatchObject({ engine: "none", hunks: [], status: "modified" });
    expect(view.note).toContain("too large");
  });
});
