/**
 * The panels a debug bundle's run offers beside the session views (`view=panel&panel=<id>`,
 * listed by the run's `panels`): logs, transcript, request, metrics, config, run context,
 * eval, environment and manifest. Each reads its data through the bundle routes (`Api.ask`) only, so the
 * same panels work on a server, on dropped bundles and in a bundled HTML file.
 */
import { EmptyState } from "../../components/feedback.js";
import type { ViewState } from "../../state/view-state.js";
import { EnvironmentPanel } from "./EnvironmentPanel.js";
import { LogsPanel } from "./LogsPanel.js";
import { ConfigPanel, EvalPanel, ManifestPanel, MetricsPanel, RequestPanel, RunContextPanel } from "./MemberPanels.js";
import { TranscriptPanel } from "./TranscriptPanel.js";

export function BundlePanelView({ file, state }: { file: string; state: ViewState }) {
  const filters = state.facets ?? [];
  switch (state.panel) {
    case "logs":
      return <LogsPanel file={file} filters={filters} search={state.q} entry={state.entry} time={state.time} />;
    case "transcript":
      return <TranscriptPanel file={file} filters={filters} search={state.q} entry={state.entry} />;
    case "request":
      return <RequestPanel file={file} />;
    case "metrics":
      return <MetricsPanel file={file} />;
    case "config":
      return <ConfigPanel file={file} />;
    case "context":
      return <RunContextPanel file={file} />;
    case "eval":
      return <EvalPanel file={file} />;
    case "environment":
      return <EnvironmentPanel file={file} />;
    case "manifest":
      return <ManifestPanel file={file} />;
    default:
      return <EmptyState title={`This viewer cannot show the "${state.panel ?? ""}" panel`}>The run offers it, but no view for it is built into this version.</EmptyState>;
  }
}
