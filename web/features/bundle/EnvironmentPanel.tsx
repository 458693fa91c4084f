/**
 * Where a bundle's run ran (`environment/`): system, Python, git, container, the allow-listed
 * environment variables, the command line, the installed packages, and the working tree's
 * uncommitted changes (`git.diff`) drawn by the compare view's diff component, file by file.
 */
import { useMemo } from "react";
import { EmptyState, ErrorState, Spinner } from "../../components/feedback.js";
import { Fact } from "../../components/Fact.js";
import { plural } from "../../components/format.js";
import { useEnvironment } from "../../queries/hooks.js";
import { parseUnifiedDiff } from "../../../shared/viewer/index.js";
import type { UnifiedDiffFile } from "../../../shared/viewer/index.js";
import { badgeClass } from "../../components/DiffHeader.js";
import { HunkList } from "../../components/HunkList.js";
import { unifiedRows } from "../../components/hunk-rows.js";
import { visibleText } from "../../components/json-model.js";
import { PanelColumn } from "./MemberPanels.js";
import { TruncatedText } from "../slices/TruncatedText.js";

const ROW = 20;
const MAX_DIFF_HEIGHT = 420;

function text(value: unknown): string {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function Facts({ title, value, testId }: { title: string; value: Record<string, unknown> | null; testId: string }) {
  return (
    <section className="card member-card" aria-label={title} data-testid={testId}>
      <h3>{title}</h3>
      {value === null ? (
        <p className="muted small">Not captured.</p>
      ) : (
        <dl className="run-facts env-facts">
          {Object.entries(value).map(([key, entry]) => (
            <Fact key={key} label={key.replace(/_/g, " ")} value={<span className="mono">{visibleText(text(entry))}</span>} />
          ))}
        </dl>
      )}
    </section>
  );
}

export function EnvironmentPanel({ file }: { file: string }) {
  const environment = useEnvironment(file);
  if (environment.isPending) return <Spinner label="Reading the environment…" />;
  if (environment.isError) return <ErrorState error={environment.error} title="Could not read the environment" onRetry={() => void environment.refetch()} />;
  const env = environment.data;
  const captured = env.system !== null || env.python !== null || env.git !== null || env.command !== null || Object.keys(env.env_vars).length > 0;
  if (!captured) {
    return (
      <EmptyState title="No environment/ in this bundle">
        <span data-testid="member-missing">WINK captures the environment when the run ends; a failed run's bundle has none.</span>
      </EmptyState>
    );
  }
  const variables = Object.entries(env.env_vars);
  return (
    <PanelColumn label="Environment" testId="environment-panel">
      <div className="env-grid">
        <Facts title="System" value={env.system} testId="env-system" />
        <Facts title="Python" value={env.python} testId="env-python" />
        <Facts title="Git" value={env.git} testId="env-git" />
        <Facts title="Container" value={env.container} testId="env-container" />
      </div>
      <GitDiff diff={env.git_diff} />
      <section className="card member-card" aria-label="Environment variables">
        <h3>Environment variables</h3>
        {variables.length === 0 ? (
          <p className="muted small">None captured (WINK keeps an allow-list; secrets show as [REDACTED]).</p>
        ) : (
          <table className="kv-table">
            <caption className="sr-only">Environment variables</caption>
            <tbody>
              {variables.map(([name, value]) => (
                <tr key={name}>
                  <th scope="row" className="mono">
                    {name}
                  </th>
                  <td className="mono">{visibleText(text(value))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="card member-card" aria-label="Command">
        <h3>Command</h3>
        {env.command === null ? <p className="muted small">Not captured.</p> : <TruncatedText text={env.command} className="entry-text mono" />}
      </section>
      <section className="card member-card" aria-label="Packages">
        <h3>Packages</h3>
        {env.packages === null ? <p className="muted small">Not captured.</p> : <TruncatedText text={env.packages} className="entry-text mono" />}
      </section>
    </PanelColumn>
  );
}

function GitDiff({ diff }: { diff: string | null }) {
  const files = useMemo((): UnifiedDiffFile[] | null => {
    if (diff === null) return [];
    try {
      return parseUnifiedDiff(diff);
    } catch {
      return null;
    }
  }, [diff]);
  return (
    <section className="card member-card" aria-label="Uncommitted changes (git diff)" data-testid="git-diff">
      <header className="card-header">
        <h3>Uncommitted changes</h3>
        <span className="muted small mono">environment/git.diff</span>
      </header>
      {diff === null ? (
        <p className="muted small">No git.diff: the run's working directory was not a git repository, or it had no uncommitted change.</p>
      ) : files === null ? (
        <TruncatedText text={diff} className="entry-text mono" />
      ) : (
        <>
          <p className="muted small">{plural(files.length, "file")} changed</p>
          {files.map((entry) => (
            <div key={`${entry.status}:${entry.path}`} className="git-diff-file" data-testid="git-diff-file" data-path={entry.path}>
              <div className="git-diff-file-head">
                <span className={`change-badge ${badgeClass(entry.status)}`}>{entry.status[0]?.toUpperCase()}</span>
                <span className="mono">{entry.old_path !== null ? `${entry.old_path} → ${entry.path}` : entry.path}</span>
              </div>
              <div className="git-diff-hunks" style={{ height: Math.min(MAX_DIFF_HEIGHT, unifiedRows(entry.hunks).length * ROW + 2) }}>
                <HunkList hunks={entry.hunks} layout="unified" label={`Uncommitted changes to ${entry.path}`} />
              </div>
            </div>
          ))}
        </>
      )}
    </section>
  );
}
