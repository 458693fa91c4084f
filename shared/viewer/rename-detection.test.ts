// Rename and copy detection against the real git: the same pairs and the same similarity
// percentages as `git diff -M -C --name-status` on the same two trees.
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { virtualFileSource } from "./file-source.js";
import * as similarity from "./similarity.js";
import { chunkCounts, scorePercent, similarityScore } from "./similarity.js";
import { diffWorkspaces } from "./snapshot-diff.js";
import type { FileChangeView } from "./types.js";
import type { VirtualFile } from "../session/workspace-items.js";

// Scoring is counted (and still done by the real function) to see when an answer is reused.
vi.mock("./similarity.js", async (original) => {
  const real = await original<typeof similarity>();
  return { ...real, similarityScore: vi.fn(real.similarityScore) };
});
const scored = () => vi.mocked(similarity.similarityScore).mock.calls.length;

const work = mkdtempSync(path.join(os.tmpdir(), "wink-renames-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const lines = (seed: number, count: number) => Array.from({ length: count }, (_, i) => `line ${i} of file ${seed}: ${"x".repeat((i * seed) % 50)}`).join("\n") + "\n";
const edit = (text: string, every: number) => text.split("\n").map((line, i) => (i % every === 0 && line !== "" ? `${line} edited` : line)).join("\n");

const base: Record<string, string> = {
  "a/moved.txt": lines(1, 80),
  "a/moved-edited.txt": lines(2, 80),
  "a/rewritten.txt": lines(3, 60),
  "a/source-of-copy.txt": lines(4, 70),
  "a/kept.txt": lines(5, 30),
  "a/deleted.txt": lines(6, 40),
  "crlf.txt": lines(7, 50),
};
const target: Record<string, string> = {
  "b/moved.txt": base["a/moved.txt"] as string,
  "b/moved-edited.txt": edit(base["a/moved-edited.txt"] as string, 9),
  "b/rewritten.txt": edit(base["a/rewritten.txt"] as string, 1),
  "a/source-of-copy.txt": edit(base["a/source-of-copy.txt"] as string, 20),
  "c/copy.txt": edit(base["a/source-of-copy.txt"] as string, 12),
  "a/kept.txt": base["a/kept.txt"] as string,
  "new/added.txt": lines(8, 25),
  "crlf-moved.txt": (base["crlf.txt"] as string).replace(/\n/g, "\r\n"),
};

function gitNameStatus(flags: readonly string[]): string[] {
  const repo = path.join(work, `repo${flags.join("")}`);
  mkdirSync(repo, { recursive: true });
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.autocrlf=false", ...args], { cwd: repo, encoding: "utf8" });
  git("init", "-q");
  const write = (files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(repo, name)), { recursive: true });
      writeFileSync(path.join(repo, name), text);
    }
  };
  write(base);
  git("add", "-A");
  git("commit", "-qm", "base");
  git("rm", "-rq", ".");
  write(target);
  git("add", "-A");
  git("commit", "-qm", "target");
  return git("diff", ...flags, "--name-status", "HEAD~1", "HEAD").trim().split("\n");
}

const vfs = (files: Record<string, string>): VirtualFile[] => Object.entries(files).map(([name, content]) => ({ path: name, segments: name.split("/"), content, sizeBytes: 0, version: null, createdAt: null, updatedAt: null, encoding: null }));

const nameStatus = (changes: readonly FileChangeView[]) =>
  changes
    .map((change) => {
      if (change.status === "renamed" || change.status === "copied") return `${change.status === "renamed" ? "R" : "C"}${String(change.similarity).padStart(3, "0")}\t${change.old_path}\t${change.path}`;
      return `${change.status[0]?.toUpperCase()}\t${change.path}`;
    })
    .sort();

describe("rename and copy detection", () => {
  it("finds what git -M -C finds when asked for copies, with git's similarity percentages", async () => {
    const baseSource = virtualFileSource(vfs(base));
    const targetSource = virtualFileSource(vfs(target));
    const files = await diffWorkspaces({ base: { source: baseSource, entries: await baseSource.list() }, target: { source: targetSource, entries: await targetSource.list() } }, { copies: true });
    expect(nameStatus(files.changes)).toEqual(gitNameStatus(["-M", "-C"]).sort());
    // Every line of rewritten.txt changed: below 50 %, so it stays a delete and an add, as in git.
    expect(files).toMatchObject({ renamed: 3, copied: 1, added: 2, deleted: 2, modified: 1 });
  });

  it("by default finds what git diff -M finds: renames at 50 %, no copies (git looks for them only with -C)", async () => {
    const baseSource = virtualFileSource(vfs(base));
    const targetSource = virtualFileSource(vfs(target));
    const files = await diffWorkspaces({ base: { source: baseSource, entries: await baseSource.list() }, target: { source: targetSource, entries: await targetSource.list() } });
    expect(nameStatus(files.changes)).toEqual(gitNameStatus(["-M"]).sort());
    expect(files).toMatchObject({ renamed: 3, copied: 0, added: 3, rename_detection: { renames: true, copies: false, threshold: 50 } });
  });

  it("scores like git's diffcore-delta", () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    expect(scorePercent(similarityScore(chunkCounts(bytes("a\nb\nc\n")), chunkCounts(bytes("a\nb\nc\n"))))).toBe(100);
    expect(scorePercent(similarityScore(chunkCounts(bytes("a\nb\n")), chunkCounts(bytes("x\ny\n"))))).toBe(0);
    // CRLF counts as LF in text files, not in binary ones.
    expect(scorePercent(similarityScore(chunkCounts(bytes("aaaa\n")), chunkCounts(bytes("aaaa\r\n"))))).toBe(83);
  });

  it("leaves adds and deletes alone when detection is off, and says when the candidate limit stopped it", async () => {
    const baseSource = virtualFileSource(vfs(base));
    const targetSource = virtualFileSource(vfs(target));
    const sides = { base: { source: baseSource, entries: await baseSource.list() }, target: { source: targetSource, entries: await targetSource.list() } };
    const off = await diffWorkspaces(sides, { renames: false, copies: false });
    expect(off).toMatchObject({ renamed: 0, copied: 0, rename_detection: { renames: false, copies: false } });
    const limited = await diffWorkspaces(sides, { limit: 1 });
    // Exact renames need no reading and are still found.
    expect(limited.rename_detection.limited).toBe(true);
    expect(limited.changes.filter((change) => change.status === "renamed").map((change) => change.path)).toEqual(["b/moved.txt"]);
  });

  it("answers the same comparison again without scoring it again, and keeps options apart", async () => {
    const baseSource = virtualFileSource(vfs(base));
    const targetSource = virtualFileSource(vfs(target));
    const sides = { base: { source: baseSource, entries: await baseSource.list() }, target: { source: targetSource, entries: await targetSource.list() } };
    const before = scored();
    const first = await diffWorkspaces(sides, { copies: true });
    const scoredOnce = scored();
    expect(scoredOnce).toBeGreaterThan(before);
    const again = await diffWorkspaces(sides, { copies: true });
    expect(scored()).toBe(scoredOnce);
    expect(again).toEqual(first);
    // Another threshold is another answer, scored again.
    const strict = await diffWorkspaces(sides, { threshold: 99, copies: true });
    expect(scored()).toBeGreaterThan(scoredOnce);
    expect(strict.renamed).toBeLessThan(first.renamed);
    // A caller changing its answer's list changes no later answer.
    again.changes.length = 0;
    expect((await diffWorkspaces(sides, { copies: true })).changes).toEqual(first.changes);
  });
});
