import { describe, expect, it } from "vitest";
import { parseUnifiedDiff } from "./unified-diff.js";

// environment/git.diff of the EvalLoop fixture bundle (08), as WINK wrote it: a change and an untracked file.
const GIT_DIFF = `diff --git a/evals/calc_suite.py b/evals/calc_suite.py
index bde43e2..a3e6463 100644
--- a/evals/calc_suite.py
+++ b/evals/calc_suite.py
@@ -1 +1,2 @@
-SAMPLES = ['calc-divide-zero-001']
+SAMPLES = ['calc-divide-zero-001', 'calc-parser-002']
+THRESHOLD = 0.8
# Untracked files:

diff --git a/notes.txt b/notes.txt
new file mode 100644
--- /dev/null
+++ b/notes.txt
@@ -0,0 +1,1 @@
+untracked scratch notes`;

describe("parseUnifiedDiff", () => {
  it("splits git diff output into files with hunks in the API's shape", () => {
    const files = parseUnifiedDiff(GIT_DIFF);
    expect(files.map((file) => [file.status, file.path, file.old_path])).toEqual([
      ["modified", "evals/calc_suite.py", null],
      ["added", "notes.txt", null],
    ]);
    expect(files[0]?.hunks).toEqual([{ old_start: 1, old_lines: 1, new_start: 1, new_lines: 2, lines: ["-SAMPLES = ['calc-divide-zero-001']", "+SAMPLES = ['calc-divide-zero-001', 'calc-parser-002']", "+THRESHOLD = 0.8"] }]);
    expect(files[1]?.hunks[0]?.lines).toEqual(["+untracked scratch notes"]);
  });

  it("names deletions and renames by their paths", () => {
    const files = parseUnifiedDiff("--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n--- a/from.txt\n+++ b/to.txt\n@@ -1 +1 @@\n-a\n+b\n");
    expect(files.map((file) => [file.status, file.path, file.old_path])).toEqual([
      ["deleted", "old.txt", null],
      ["renamed", "to.txt", "from.txt"],
    ]);
  });
});
