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

/** What to do about a remote store's failure, by its stable code (docs/errors.md). */
const STORE_HINTS: Record<string, string> = {
  E_SOURCE_CREDENTIALS_MISSING: "No credentials were found for the store: set them the AWS way (environment, ~/.aws config and credentials, --profile) and start wink-debug again.",
  E_SOURCE_CREDENTIALS_EXPIRED: "The store's credentials have expired: refresh them (for example aws sso login), then try again.",
  E_SOURCE_CREDENTIALS_INVALID: "The store rejected the credentials: check the access key and secret (or the URL's user and password).",
  E_SOURCE_FORBIDDEN: "The store refused access to this object: check the permissions of these credentials.",
  E_SOURCE_THROTTLED: "The store keeps asking to slow down: wait a moment, then try again.",
  E_SOURCE_UNREACHABLE: "The store cannot be reached: check the endpoint and the network.",
  E_SOURCE_TIMEOUT: "The store did not answer in time: try again.",
  E_SOURCE_TRUNCATED: "The store sent less than it announced (a cut connection or a truncated object): try again.",
  E_SOURCE_CHANGED: "The object changed while it was read: try again to read the new version.",
};

/** The stable code of an error from the server (or the in-browser data layer), or null. */
export function errorCode(error: unknown): string | null {
  return error instanceof ApiError ? error.code : null;
}

export function ErrorState({ error, title = "Could not load this", onRetry }: { error: unknown; title?: string; onRetry?: () => void }) {
  const code = errorCode(error);
  const hint = code === null ? undefined : STORE_HINTS[code];
  return (
    <div className="state state-error" role="alert">
      <Icon name="alert" size={18} />
      <div>
        <strong>{title}</strong>
        <div className="state-detail">{errorMessage(error)}</div>
        {hint === undefined ? null : (
          <div className="state-detail" data-testid="error-hint">
            {hint} <code className="small">{code}</code>
          </div>
        )}
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

/** A remote store's failure that is not about one view (a failed poll): shown above the run list. */
export function storeHint(code: string | null): string | null {
  return code === null ? null : (STORE_HINTS[code] ?? null);
}
