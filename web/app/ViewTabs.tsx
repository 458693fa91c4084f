/** The views of the selected run, as tabs (keys 1–6), plus the panels the run's source offers (7–9 for the first three, 0 for the next). */
import { Icon } from "../components/Icon.js";
import type { IconName } from "../components/Icon.js";
import { Link } from "../components/Link.js";
import { VIEWS, VIEW_LABELS, panelPatch, viewPatch } from "../state/view-state.js";
import type { ViewName } from "../state/view-state.js";

const ICONS: Record<(typeof VIEWS)[number], IconName> = { run: "alert", timeline: "clock", slices: "layers", files: "folder", compare: "compare", search: "search" };

export function ViewTabs({ active, panel, panels }: { active: ViewName; panel: string | undefined; panels: readonly { id: string; title: string }[] }) {
  return (
    <nav className="view-tabs" aria-label="Views">
      <span className="view-tab-group">
        {VIEWS.map((view, index) => (
          <Link
            key={view}
            to={viewPatch(view)}
            id={`tab-${view}`}
            aria-current={view === active ? "page" : undefined}
            className={`view-tab${view === active ? " is-active" : ""}`}
            data-testid={`tab-${view}`}
            title={`${VIEW_LABELS[view]} (${index + 1})`}
          >
            <Icon name={ICONS[view]} size={15} />
            {VIEW_LABELS[view]}
            <span className="tab-key" aria-hidden="true">
              {index + 1}
            </span>
          </Link>
        ))}
      </span>
      {panels.length > 0 ? (
        <span className="view-tab-group view-tab-panels" data-testid="panel-tabs">
          {panels.map((entry, index) => (
            <Link
              key={entry.id}
              to={panelPatch(entry.id)}
              id={`tab-panel-${entry.id}`}
              aria-current={active === "panel" && panel === entry.id ? "page" : undefined}
              className={`view-tab view-tab-panel${active === "panel" && panel === entry.id ? " is-active" : ""}`}
              data-testid={`tab-panel-${entry.id}`}
              title={index < 3 ? `${entry.title} (${index + 7})` : entry.title}
            >
              {entry.title}
              {index < 3 ? (
                <span className="tab-key" aria-hidden="true">
                  {index + 7}
                </span>
              ) : null}
            </Link>
          ))}
        </span>
      ) : null}
    </nav>
  );
}
