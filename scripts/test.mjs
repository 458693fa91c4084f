#!/usr/bin/env node
// `npm test`: system packages, build, typecheck, lint, unit/integration tests (vitest) and
// browser tests (Playwright), then one closing line "N passed, N failed" that CI reads.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";

const results = ".test-results";
rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });

let passed = 0;
let failed = 0;
const failures = [];
// Names of the tests that failed, printed again just above the closing line: CI keeps only the
// tail of the output, and a red run that does not say which test failed cannot be fixed.
const failedTests = [];

/** The first lines of a failure message, without colour codes. */
function firstLines(message, count = 4) {
  return String(message ?? "").replace(/\u001b\[[0-9;]*m/g, "").split("\n").filter((line) => line.trim() !== "").slice(0, count).map((line) => `      ${line.slice(0, 300)}`).join("\n");
}

function step(name, command, args, env = {}) {
  process.stdout.write(`\n== ${name}: ${command} ${args.join(" ")}\n`);
  const started = Date.now();
  const run = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  const ok = run.status === 0;
  process.stdout.write(`== ${name}: ${ok ? "ok" : `FAILED (exit ${run.status ?? run.signal})`} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (!ok) failures.push(name);
  return ok;
}

function countStep(name, ok) {
  if (ok) passed += 1;
  else failed += 1;
}

countStep("system packages", step("system packages", "bash", ["scripts/ensure-system-deps.sh"]));
countStep("build", step("build", "npm", ["run", "--silent", "build"]));
countStep("typecheck", step("typecheck", "npm", ["run", "--silent", "typecheck"]));
countStep("lint", step("lint", "npm", ["run", "--silent", "lint"]));

const vitestOk = step("unit and integration tests", "npx", ["vitest", "run"]);
const vitestReport = `${results}/vitest.json`;
const failedBeforeVitest = failed;
if (existsSync(vitestReport)) {
  const report = JSON.parse(readFileSync(vitestReport, "utf8"));
  passed += report.numPassedTests ?? 0;
  failed += (report.numFailedTests ?? 0) + (report.numTodoTests ?? 0) + (report.numPendingTests ?? 0);
  // A suite that fails to load reports no tests: count it as a failure.
  for (const file of report.testResults ?? []) {
    const where = file.name?.startsWith(process.cwd()) ? file.name.slice(process.cwd().length + 1) : file.name;
    if (file.status === "failed" && (file.assertionResults ?? []).length === 0) {
      failed += 1;
      failedTests.push(`vitest ${where}: did not load\n${firstLines(file.message)}`);
    }
    for (const test of file.assertionResults ?? []) {
      if (test.status === "failed") failedTests.push(`vitest ${where} › ${test.fullName}\n${firstLines((test.failureMessages ?? []).join("\n"))}`);
    }
  }
} else {
  failed += 1;
}
// Vitest fails a run with every test passed when an error escaped them (an unhandled rejection
// or error event): counted, and said, so that the closing line agrees with the exit code.
if (!vitestOk && failed === failedBeforeVitest) {
  failed += 1;
  failedTests.push("vitest: exited non-zero with no failed test (an unhandled error: see \"Unhandled Errors\" above)");
}

if (existsSync("e2e/playwright.config.ts")) {
  step("browser tests", "npx", ["playwright", "test", "-c", "e2e/playwright.config.ts"], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: `${results}/playwright.json`,
  });
  const pwReport = `${results}/playwright.json`;
  if (existsSync(pwReport)) {
    const pw = JSON.parse(readFileSync(pwReport, "utf8"));
    const stats = pw.stats ?? {};
    const walk = (suite, titles) => {
      for (const spec of suite.specs ?? []) {
        for (const test of spec.tests ?? []) {
          if (test.status !== "unexpected" && test.status !== "skipped") continue;
          const last = (test.results ?? []).at(-1);
          failedTests.push(`playwright ${spec.file}:${spec.line} › ${[...titles, spec.title].join(" › ")} (${test.status})\n${firstLines(last?.error?.message)}`);
        }
      }
      for (const child of suite.suites ?? []) walk(child, child.title && child.title !== child.file ? [...titles, child.title] : titles);
    };
    for (const suite of pw.suites ?? []) walk(suite, []);
    passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
    failed += (stats.unexpected ?? 0) + (stats.skipped ?? 0);
  } else {
    failed += 1;
  }
}

if (failedTests.length) process.stdout.write(`\nfailed tests:\n${failedTests.map((line) => `  ${line}`).join("\n")}\n`);
if (failures.length) process.stdout.write(`\nfailed steps: ${failures.join(", ")}\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 && failures.length === 0 ? 0 : 1);
