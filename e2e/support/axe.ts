/**
 * axe-core in the page: the engine's source is evaluated through the DevTools protocol (the
 * app's CSP allows no inline script, and this is not one), then run on the whole document.
 * Returns the violations of impact `serious` or `critical`, one line each, and those of the
 * structural rules below whatever their impact (axe rates them moderate, but content outside
 * every landmark, a skipped heading level and two landmarks of one name are what a screen
 * reader user trips on).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "@playwright/test";

const source = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface AxeNode {
  readonly target: unknown[];
  /** color-contrast: the colours and the ratio measured. */
  readonly contrast?: string;
}
interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly AxeNode[];
}

const STRUCTURAL = new Set(["region", "heading-order", "landmark-unique"]);

export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(source);
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ["violations"], runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } }).then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, contrast: n.any && n.any[0] && n.any[0].data && n.any[0].data.contrastRatio ? n.any[0].data.fgColor + " on " + n.any[0].data.bgColor + " = " + n.any[0].data.contrastRatio : undefined })) })))`)) as AxeViolation[];
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical" || STRUCTURAL.has(violation.id))
    .map((violation) => `${violation.impact} ${violation.id}: ${violation.help} — ${violation.nodes.slice(0, 3).map((node) => `${JSON.stringify(node.target)}${node.contrast === undefined ? "" : ` (${node.contrast})`}`).join(", ")}${violation.nodes.length > 3 ? ` (+${violation.nodes.length - 3})` : ""}`);
}
