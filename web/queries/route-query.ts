/**
 * One `queryOptions` factory and one hook for every route the views ask: the key comes from
 * the route's name and its request (`keys.route`), the fetcher is `api.ask[name]`, so a new
 * route needs neither. `skipToken` for the request: an input is not known yet, and the query
 * waits under `keys.waiting(name)`, never a placeholder key.
 */
import { queryOptions, skipToken, useQuery } from "@tanstack/react-query";
import type { SkipToken } from "@tanstack/react-query";
import type { Api, RouteAnswer, RouteParams } from "../api/api.js";
import { useApi } from "../api/context.js";
import { keys } from "../api/keys.js";
import type { AskedRouteName } from "../api/routes.js";

export function routeQuery<Name extends AskedRouteName>(api: Api, name: Name, params: RouteParams<Name> | SkipToken) {
  // Typed by the route: the compiler cannot call the union of every route's call. The Api is
  // the fetcher, not an input: each Api has a query client of its own (app/Root.tsx).
  const ask = (request: RouteParams<Name>) => (api.ask[name] as (request: RouteParams<Name>) => Promise<RouteAnswer<Name>>)(request);
  return queryOptions({ queryKey: params === skipToken ? keys.waiting(name) : keys.route(name, params), queryFn: params === skipToken ? skipToken : () => ask(params) });
}

/** `enabled` false: the query neither fetches nor refetches, and shows what the cache holds under its key. */
export function useRoute<Name extends AskedRouteName>(name: Name, params: RouteParams<Name> | SkipToken, enabled = true) {
  return useQuery({ ...routeQuery(useApi(), name, params), enabled });
}

/** `build(value)` once `value` is known; until then `skipToken` (the query waits). */
export function when<Value, Params>(value: Value | null | undefined, build: (value: Value) => Params): Params | SkipToken {
  return value === null || value === undefined ? skipToken : build(value);
}
