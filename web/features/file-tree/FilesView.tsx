/**
 * The workspace at the selected snapshot: where it comes from (archive or the session's
 * VirtualFileSystem slice), the tree with change badges against the base snapshot (the
 * session's previous line, or the compare base), and the open file.
 */
import { useMemo, useRef } from "react";
import type { FileTreeNodeResponse, RunResponse, SnapshotRef } from "../../api/api.js";
import { EmptyState, ErrorState, Spinner } from "../../components/feedback.js";
import { Icon } from "../../components/Icon.js";
import { Link } from "../../components/Link.js";
import { useBrowse, useFilesystemMeta, useRun } from "../../queries/hooks.js";
import { useKeymap } from "../../state/shortcuts.js";
import { useNavigate } from "../../state/url-store.js";
import { FileView } from "../file-view/FileView.js";
import { FileTree } from "./FileTree.js";
import { countFiles } from "./tree-rows.js";
import { formatCount } from "../../components/format.js";

/** Why a bundle's line shows no workspace: a failed run has no capture; the capture belongs to the bundle's last line. */
function BundleWithoutWorkspace({ run, line }: { run: RunResponse; line: number }) {
  const last = run.sessions[0]?.snapshots.map((snapshot) => snapshot.line_number).sort((a, b) => b - a)[0];
  if (last !== undefined && last !== line) {
    return (
      <>
        The workspace WINK captured (filesystem/) is the state after the run: <Link to={{ line: last }}>line {last}</Link>.
      </>
    );
  }
  return <>{run.error !== null ? "None: WINK captures no filesystem/ for a failed run." : "This bundle holds no filesystem/ capture."}</>;
}

function findNode(root: FileTreeNodeResponse, path: string): FileTreeNodeResponse | null {
  let node: FileTreeNodeResponse | undefined = root;
  const parts = path.split("/");
  for (let i = 0; i < parts.length && node !== undefined; i++) {
    const prefix = parts.slice(0, i + 1).join("/");
    node = node.children?.find((child) => child.path === prefix);
  }
  return node ?? null;
}

function filePaths(root: FileTreeNodeResponse): string[] {
  const paths: string[] = [];
  const walk = (node: FileTreeNodeResponse) => {
    for (const child of node.children ?? []) {
      if (child.type === "file") paths.push(child.path);
      else walk(child);
    }
  };
  walk(root);
  return paths;
}

export function FilesView({ snapshot, path, line, base }: { snapshot: SnapshotRef; path: string | undefined; line: number | undefined; base: SnapshotRef | undefined }) {
  const navigate = useNavigate();
  const meta = useFilesystemMeta(snapshot);
  const run = useRun(snapshot.file);
  // A bundle's two lines are before and after the run; only the last has a workspace, so badges against "before" would mark every file added.
  const browse = useBrowse(run.isPending ? null : snapshot, base ?? (run.data?.source.kind === "bundle" ? "none" : "previous"));
  const filterRef = useRef<HTMLInputElement>(null);
  const paths = useMemo(() => (browse.data === undefined ? [] : filePaths(browse.data.root)), [browse.data]);
  const node = browse.data === undefined || path === undefined ? null : findNode(browse.data.root, path);

  const step = (delta: number) => {
    if (paths.length === 0) return;
    const index = path === undefined ? -1 : paths.indexOf(path);
    const next = paths[Math.min(paths.length - 1, Math.max(0, index + delta))];
    if (next !== undefined) navigate({ path: next, at: undefined }, { replace: true });
  };
  useKeymap({ j: () => step(1), k: () => step(-1), "/": () => filterRef.current?.focus() });

  if (browse.isPending) return <Spinner label="Reading the workspace…" />;
  if (browse.isError) return <ErrorState error={browse.error} title="Could not read the workspace" onRetry={() => void browse.refetch()} />;
  if (browse.data.source === null) {
    return (
      <EmptyState title="No filesystem snapshot">
        <span data-testid="no-workspace">{run.data?.source.kind === "bundle" ? <BundleWithoutWorkspace run={run.data} line={snapshot.line} /> : (meta.data?.error ?? "This snapshot has no .fs.zip archive beside its session file and no VirtualFileSystem slice.")}</span>
      </EmptyState>
    );
  }
  return (
    <div className="files-layout">
      <aside className="card files-sidebar">
        <div className="files-source small">
          <Icon name={browse.data.source === "archive" ? "layers" : "braces"} />
          <span>
            {browse.data.source === "archive" ? (
              <>
                Archive <span className="mono">{browse.data.archive}</span>
              </>
            ) : (
              "VirtualFileSystem slice"
            )}
          </span>
          {meta.data?.manifest !== null && typeof meta.data?.manifest === "object" && Array.isArray((meta.data.manifest as { warnings?: unknown }).warnings) && ((meta.data.manifest as { warnings: unknown[] }).warnings.length > 0) ? (
            <span className="tag tag-warn" title={((meta.data.manifest as { warnings: string[] }).warnings).join("\n")}>
              manifest warnings
            </span>
          ) : null}
        </div>
        <FileTree browse={browse.data} selected={path} onOpen={(next) => navigate({ path: next, at: undefined })} filterRef={filterRef} />
      </aside>
      <div className="files-main">
        {path === undefined ? (
          <EmptyState title="Pick a file">
            {formatCount(countFiles(browse.data.root))} files. Use the tree, <kbd className="kbd">J</kbd>/<kbd className="kbd">K</kbd>, or <kbd className="kbd">/</kbd> to filter.
          </EmptyState>
        ) : node === null ? (
          <EmptyState title={`${path} is not in this snapshot`} />
        ) : (
          <FileView snapshot={snapshot} path={path} line={line} change={node.change} canCompare={browse.data.base !== null} />
        )}
      </div>
    </div>
  );
}
