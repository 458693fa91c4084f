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

step("unit and integration tests", "npx", ["vitest", "run"]);
const vitestReport = `${results}/vitest.json`;
if (existsSync(vitestReport)) {
  const report = JSON.parse(readFileSync(vitestReport, "utf8"));
  passed += report.numPassedTests ?? 0;
  failed += (report.numFailedTests ?? 0) + (report.numTodoTests ?? 0) + (report.numPendingTests ?? 0);
  // A suite that fails to load reports no tests: count it as a failure.
  for (const file of report.testResults ?? []) {
    if (file.status === "failed" && (file.assertionResults ?? []).length === 0) failed += 1;
  }
} else {
  failed += 1;
}

if (existsSync("e2e/playwright.config.ts")) {
  step("browser tests", "npx", ["playwright", "test", "-c", "e2e/playwright.config.ts"], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: `${results}/playwright.json`,
  });
  const pwReport = `${results}/playwright.json`;
  if (existsSync(pwReport)) {
    const stats = JSON.parse(readFileSync(pwReport, "utf8")).stats ?? {};
    passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
    failed += (stats.unexpected ?? 0) + (stats.skipped ?? 0);
  } else {
    failed += 1;
  }
}

if (failures.length) process.stdout.write(`\nfailed steps: ${failures.join(", ")}\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 && failures.length === 0 ? 0 : 1);
