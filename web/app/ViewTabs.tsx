import { Icon } from "../components/Icon.js";
import type { IconName } from "../components/Icon.js";
import { navigate } from "../state/url-store.js";
import { VIEWS, VIEW_LABELS } from "../state/view-state.js";
import type { ViewName } from "../state/view-state.js";

const ICONS: Record<ViewName, IconName> = { timeline: "clock", slices: "layers", files: "folder", compare: "compare", search: "search" };

export function ViewTabs({ active }: { active: ViewName }) {
  return (
    <nav className="view-tabs" role="tablist" aria-label="Views">
      {VIEWS.map((view, index) => (
        <button key={view} type="button" role="tab" aria-selected={view === active} className={`view-tab${view === active ? " is-active" : ""}`} onClick={() => navigate({ view })} data-testid={`tab-${view}`} title={`${VIEW_LABELS[view]} (${index + 1})`}>
          <Icon name={ICONS[view]} size={15} />
          {VIEW_LABELS[view]}
          <span className="tab-key">{index + 1}</span>
        </button>
      ))}
    </nav>
  );
}
