/** The bar above a diff (change badge, title, facts, the keys that move through it) and the layout switch. */
import type { ReactNode } from "react";
import { Kbd } from "./feedback.js";
import { Icon } from "./Icon.js";

export type DiffLayout = "split" | "unified";

/** Side by side or unified. */
export function LayoutToggle({ layout, onChange }: { layout: DiffLayout; onChange: (layout: DiffLayout) => void }) {
  return (
    <div className="segmented" role="group" aria-label="Diff layout">
      <button type="button" className={layout === "split" ? "is-on" : ""} aria-pressed={layout === "split"} onClick={() => onChange("split")}>
        <Icon name="split" /> Side by side
      </button>
      <button type="button" className={layout === "unified" ? "is-on" : ""} aria-pressed={layout === "unified"} onClick={() => onChange("unified")}>
        <Icon name="rows" /> Unified
      </button>
    </div>
  );
}

/** The badge class of a change status (files: added/modified/deleted…; slices: added/changed/removed). */
export function badgeClass(status: string): string {
  return `badge-${status === "removed" ? "deleted" : status === "changed" ? "modified" : status}`;
}

export function DiffHeader({ title, status, facts, children }: { title: string; status: string; facts: string; children?: ReactNode }) {
  return (
    <header className="diff-header">
      <span className={`change-badge ${badgeClass(status)}`}>{status}</span>
      <span className="mono diff-title" title={title} data-testid="diff-title">
        {title}
      </span>
      <span className="muted small">{facts}</span>
      {children}
      <span className="muted small diff-keys">
        <Kbd>.</Kbd>/<Kbd>,</Kbd> changes · <Kbd>J</Kbd>/<Kbd>K</Kbd> files · <Kbd>U</Kbd> layout
      </span>
    </header>
  );
}
