/**
 * Under a bundle in the run list: its place among the runs of its request ("iteration 2 of
 * 3") and a link comparing it with the run before it. Nothing for a bundle alone in its request.
 */
import { Icon } from "./Icon.js";
import { Link } from "./Link.js";
import { useBundleGroups } from "../queries/hooks.js";
import { compareBundlesPatch, runLabel } from "../state/bundle-links.js";

export function BundleGroupNote({ path }: { path: string }) {
  const groups = useBundleGroups();
  const bundles = groups.data?.find((group) => group.bundles.some((bundle) => bundle.path === path))?.bundles ?? [];
  if (bundles.length < 2) return null;
  const position = bundles.findIndex((bundle) => bundle.path === path);
  const self = bundles[position];
  const previous = bundles[position - 1];
  if (self === undefined) return null;
  return (
    <span className="run-group-note small" data-testid="run-group-note">
      <span className="muted">
        {runLabel(self)} · {position + 1} of {bundles.length} runs of its request
      </span>
      {previous !== undefined ? (
        <Link to={compareBundlesPatch(previous, self)} className="pill-link" data-testid="compare-with-previous" title={`Compare ${runLabel(previous)} (base) with ${runLabel(self)}`}>
          <Icon name="compare" size={11} /> compare with {runLabel(previous)}
        </Link>
      ) : null}
    </span>
  );
}
