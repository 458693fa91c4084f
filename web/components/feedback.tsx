/** Loading, empty and error states, used by every view so they look and read the same. */
import type { ReactNode } from "react";
import { ApiError } from "../api/api.js";
import { Icon } from "./Icon.js";

export function Spinner({ label = "Loading…" }: { label?: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <strong>{title}</strong>
      {children === undefined ? null : <div className="state-detail">{children}</div>}
    </div>
  );
}

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.detail;
  if (error instanceof Error) return error.message;
  return String(error);
}

export function ErrorState({ error, title = "Could not load this", onRetry }: { error: unknown; title?: string; onRetry?: () => void }) {
  return (
    <div className="state state-error" role="alert">
      <Icon name="alert" size={18} />
      <div>
        <strong>{title}</strong>
        <div className="state-detail">{errorMessage(error)}</div>
        {onRetry === undefined ? null : (
          <button type="button" className="btn btn-small" onClick={onRetry}>
            Try again
          </button>
        )}
      </div>
    </div>
  );
}

export function Kbd({ children }: { children: ReactNode }) {
  return <kbd className="kbd">{children}</kbd>;
}
