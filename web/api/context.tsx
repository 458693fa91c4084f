/** The `Api` in React context: components call `useApi()` and never `fetch`. */
import { createContext, useContext } from "react";
import type { ReactNode } from "react";
import type { Api } from "./api.js";

const ApiContext = createContext<Api | null>(null);

export function ApiProvider({ api, children }: { api: Api; children: ReactNode }) {
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}

/** The Api of the nearest provider (throws outside one: a wiring bug, not a user error). */
export function useApi(): Api {
  const api = useContext(ApiContext);
  if (api === null) throw new Error("useApi() outside <ApiProvider>");
  return api;
}
