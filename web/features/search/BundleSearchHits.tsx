/**
 * The search view's hits in what only a debug bundle holds — log records, transcript
 * entries, the small members (error, request, metrics, config, environment…) — and, across
 * bundles, in their slices and files, grouped by bundle and kind. A hit opens where it is:
 * the record in the Logs panel, the entry in the Transcript panel, the member's panel, the
 * slice item, the file line.
 */
import type { BundleSearchResponse } from "../../api/bundle-api.js";
import { panelPatch } from "../../state/view-state.js";
import type { ViewPatch } from "../../state/view-state.js";
import { HitGroup } from "../../components/HitGroup.js";
import type { BundlePanelId } from "../../../shared/debug-bundle/index.js";

type Hit = BundleSearchResponse["hits"][number];

/** The panel that shows a member. */
function memberPanel(member: string): BundlePanelId | "run" {
  if (member === "error.json") return "run";
  if (member.startsWith("request/")) return "request";
  if (member === "metrics.json") return "metrics";
  if (member === "config.json" || member === "prompt_overrides.json") return "config";
  if (member === "run_context.json") return "context";
  if (member === "eval.json") return "eval";
  if (member.startsWith("environment/")) return "environment";
  return "manifest";
}

/** Where a hit opens (`line`: the bundle's default line, where its workspace and panels are). */
export function bundleHitPatch(hit: Hit, line: number): ViewPatch {
  const at = { file: hit.bundle, line };
  switch (hit.kind) {
    case "log":
      return { ...at, ...panelPatch("logs", { entry: hit.line_number }) };
    case "transcript":
      return { ...at, ...panelPatch("transcript", { entry: hit.rowid }) };
    case "member": {
      const panel = memberPanel(hit.member);
      return panel === "run" ? { ...at, view: "run", panel: undefined } : { ...at, ...panelPatch(panel) };
    }
    case "slice":
      return { file: hit.bundle, line: hit.line_number, view: "slices", slice: hit.slice_type, item: hit.item_index, panel: undefined };
    case "file":
      return { ...at, view: "files", path: hit.path, at: hit.line > 0 ? hit.line : undefined, base: undefined, panel: undefined };
  }
}

function where(hit: Hit): string {
  switch (hit.kind) {
    case "log":
      return `logs/app.jsonl:${hit.line_number} · ${hit.level} · ${hit.event}`;
    case "transcript":
      return `transcript #${hit.rowid} · ${hit.entry_type.replace(/_/g, " ")}`;
    case "member":
      return hit.member;
    case "slice":
      return `${hit.display_name} · item ${hit.item_index + 1} · ${hit.json_path}`;
    case "file":
      return `${hit.path}${hit.line > 0 ? `:${hit.line}` : " (name)"}`;
  }
}

const KIND_TITLES: Record<Hit["kind"], string> = { log: "Logs", transcript: "Transcript", member: "Members", slice: "Slices", file: "Files" };

export function BundleSearchHits({ result, lineOf, nameOf, query, regex }: { result: BundleSearchResponse; lineOf: (bundle: string) => number; nameOf: (bundle: string) => string; query: string; regex: boolean }) {
  const groups = new Map<string, Hit[]>();
  for (const hit of result.hits) {
    const key = `${hit.bundle}\n${hit.kind}`;
    groups.set(key, [...(groups.get(key) ?? []), hit]);
  }
  const several = new Set(result.hits.map((hit) => hit.bundle)).size > 1;
  return (
    <>
      {[...groups].map(([key, hits]) => {
        const first = hits[0] as Hit;
        return (
          <HitGroup
            key={key}
            title={several ? `${nameOf(first.bundle)} · ${KIND_TITLES[first.kind]}` : KIND_TITLES[first.kind]}
            items={hits.map((hit) => ({ to: bundleHitPatch(hit, lineOf(hit.bundle)), where: where(hit), snippet: hit.snippet }))}
            query={query}
            regex={regex}
            testId="bundle-hit-group"
            hitTestId="bundle-hit"
            kind={first.kind}
          />
        );
      })}
    </>
  );
}
