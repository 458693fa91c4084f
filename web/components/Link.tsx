/**
 * A link to a view of the app: a real `<a href>` (it opens in a new tab, can be copied, and
 * says where it goes), followed in place with `navigate` on a plain click.
 */
import type { AnchorHTMLAttributes, MouseEvent, ReactNode } from "react";
import { applyPatch } from "../state/view-state.js";
import type { ViewPatch } from "../state/view-state.js";
import { navigate, readViewState, urlOf } from "../state/url-store.js";

export interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> {
  /** What the link changes in the current view state. */
  readonly to: ViewPatch;
  readonly replace?: boolean;
  readonly children: ReactNode;
}

/** The URL of the current state with `patch` applied. */
export function hrefOf(patch: ViewPatch): string {
  return urlOf(applyPatch(readViewState(), patch));
}

export function Link({ to, replace, children, onClick, ...rest }: LinkProps) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to, replace === undefined ? {} : { replace });
  };
  return (
    <a href={hrefOf(to)} onClick={follow} {...rest}>
      {children}
    </a>
  );
}
