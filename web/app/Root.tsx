/**
 * The top of the tree: the Api in use and its query cache. Opening local files swaps in a
 * `LocalApi` with a fresh cache (the two sources never share cached answers); going back
 * restores the server's.
 */
import { QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useState } from "react";
import type { Api, RunResponse } from "../api/api.js";
import { ApiError } from "../api/api.js";
import { ApiProvider } from "../api/context.js";
import { keys } from "../api/keys.js";
import { App } from "./App.js";
import { runTotal } from "../features/runs/RunsPanel.js";
import type { SourceSwitch } from "./source-switch.js";
import { newestRunQuery } from "../queries/options.js";
import { navigate, readViewState } from "../state/url-store.js";
import type { ViewName } from "../state/view-state.js";

/**
 * A served viewer's session ended under the page (it expired, or the user signed out in
 * another tab): the page itself is asked for again, which the server's sign-in guard sends
 * through sign-in and back to this very URL. At most once a minute, so a server that keeps
 * refusing cannot reload the page in a loop.
 */
function signInAgainOn(error: unknown): void {
  if (!(error instanceof ApiError) || error.status !== 401 || error.code !== "WD_ERR_SIGN_IN" || typeof window === "undefined") return;
  const key = "wink-sign-in-again";
  const last = Number(window.sessionStorage.getItem(key) ?? 0);
  if (Date.now() - last < 60_000) return;
  window.sessionStorage.setItem(key, String(Date.now()));
  window.location.reload();
}

function newClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: signInAgainOn }),
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        gcTime: 5 * 60_000,
        refetchOnWindowFocus: false,
        // A 4xx will not get better by asking again.
        retry: (count, error) => count < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
      },
    },
  });
}


/**
 * The first client. Where the app lands without a link it asks for the newest run now, while
 * the first render is under way, not after it (the server preloads that answer for the page),
 * unless the page came with that answer (`landingRun`: the server rendered the landing page
 * from it, and the first render must draw the same) or opens on the eval, which shows no run
 * (the server preloads its `/api/failures` instead).
 */
function firstClient(api: Api, landingRun: RunResponse | undefined): QueryClient {
  const client = newClient();
  if (landingRun !== undefined) {
    client.setQueryData(keys.route("run", {}), landingRun);
    client.setQueryData(keys.route("run", { file: landingRun.source.path }), landingRun);
  } else if (readViewState().file === undefined && readViewState().view !== "eval") {
    void client.prefetchQuery(newestRunQuery(api, client));
  }
  return client;
}

export function Root({ initialApi, landingRun }: { initialApi: Api; landingRun?: RunResponse }) {
  const [active, setActive] = useState<{ api: Api; client: QueryClient; id: number }>(() => ({ api: initialApi, client: firstClient(initialApi, landingRun), id: 0 }));
  const [server] = useState(() => (initialApi.kind === "http" ? active : null));

  const openLocal = useCallback((api: Api) => {
    // Opening files is a landing of its own: more than one run opens on the eval, as the
    // server's bare URL does (server/plugins/spa-fallback.ts). Asked before the switch, so the
    // app never starts on a run it would leave at once; a page of one run is enough for the count,
    // whose files that are some other JSON document (a truth.json) are no runs, as on the server.
    const switchTo = (view: ViewName | undefined) => {
      setActive((previous) => ({ api, client: newClient(), id: previous.id + 1 }));
      navigate({ file: undefined, line: undefined, base: undefined, path: undefined, slice: undefined, item: undefined, event: undefined, at: undefined, q: undefined, ...(view === undefined ? {} : { view, panel: undefined, entry: undefined }) });
    };
    void api.ask.runs({ limit: 1 }).then(
      (runs) => switchTo(runTotal(runs) > 1 ? "eval" : undefined),
      () => switchTo(undefined),
    );
  }, []);
  const backToServer = useMemo(
    () =>
      server === null
        ? null
        : () => {
            setActive((previous) => ({ ...server, id: previous.id + 1 }));
            navigate({ file: undefined, line: undefined, base: undefined, path: undefined, slice: undefined, item: undefined, event: undefined, at: undefined, q: undefined });
          },
    [server],
  );
  const sourceSwitch = useMemo<SourceSwitch>(() => ({ openLocal, backToServer: active.api === server?.api ? null : backToServer }), [openLocal, backToServer, active.api, server]);
  // The page may be the server's drawing of the landing page, shown before the app starts
  // (web/boot.ts): this says the app has taken it over (its handlers and shortcuts are live),
  // for tools that drive the page. An effect of the root runs after every effect below it.
  useEffect(() => {
    document.documentElement.dataset.app = "ready";
  }, []);

  return (
    <ApiProvider api={active.api}>
      <QueryClientProvider client={active.client}>
        <App key={active.id} source={sourceSwitch} />
      </QueryClientProvider>
    </ApiProvider>
  );
}
