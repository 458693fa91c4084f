/**
 * Test support: real python3 as the reference where WINK's behaviour is Python's own
 * (`fnmatch`, `str.splitlines`). One process per batch: the cases go in as JSON on stdin,
 * the answers come back as JSON on stdout, so thousands of cases cost one interpreter start.
 */
import { execFileSync } from "node:child_process";

/**
 * Run `body` in python3 with `cases` (decoded from JSON) bound to `cases`; `body` must
 * assign the list of answers to `answers`. Returns the answers, one per case.
 */
export function pythonAnswers<T>(cases: readonly unknown[], body: string): T[] {
  const program = `import json, sys\ncases = json.load(sys.stdin)\nanswers = None\n${body}\njson.dump(answers, sys.stdout)\n`;
  const stdout = execFileSync("python3", ["-c", program], { input: JSON.stringify(cases), encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const answers = JSON.parse(stdout) as T[];
  if (!Array.isArray(answers) || answers.length !== cases.length) throw new Error(`python3 answered ${String(answers?.length)} of ${cases.length} cases`);
  return answers;
}

/** Python's `fnmatch.fnmatchcase(name, pattern)` for each `[name, pattern]`, or "error" when it raises. */
export function pythonFnmatch(cases: readonly (readonly [string, string])[]): (boolean | "error")[] {
  return pythonAnswers<boolean | "error">(
    cases,
    `import fnmatch
def one(name, pattern):
    try:
        return fnmatch.fnmatchcase(name, pattern)
    except Exception:
        return "error"
answers = [one(name, pattern) for name, pattern in cases]`,
  );
}
