import { DocsRoutes } from "./Docs.ts"

/** The API reference pages. */
export const DocsLive = DocsRoutes
