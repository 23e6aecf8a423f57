import { DiscoveryRoutes } from "./Discovery.ts"

/** The discovery documents (llms.txt, agent and server cards, the API catalog) over the tool runner the app provides (App.ts). */
export const DiscoveryLive = DiscoveryRoutes
