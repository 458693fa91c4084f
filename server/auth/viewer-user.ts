/**
 * `request.viewerUser`: who the request is from in the served mode (set by the sign-in guard),
 * null in the local default. Declared once on the app so the guard, the access log and the
 * metrics read one field.
 */
import type { FastifyInstance } from "fastify";
import type { ViewerUser } from "./sign-in-method.js";

declare module "fastify" {
  interface FastifyRequest {
    viewerUser: ViewerUser | null;
  }
}

/** Declares `request.viewerUser` (null until a sign-in method or the session cookie says otherwise). */
export function decorateViewerUser(app: FastifyInstance): void {
  app.decorateRequest("viewerUser", null);
}
