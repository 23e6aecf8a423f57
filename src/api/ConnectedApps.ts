import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ConnectedAppList } from "../domain/OAuth.ts"
import { PathId } from "../domain/Text.ts"
import { Authentication, RequiredRole } from "./Security.ts"
import { CustomerIdParam, NotFoundError } from "./Shared.ts"

/** Assistants connected by OAuth sign-in: listed and disconnected, as on the dashboard. */
export class ConnectedAppsApi extends HttpApiGroup.make("connectedApps")
  .add(
    HttpApiEndpoint.get("list", "/api/apps/:customerId", {
      params: CustomerIdParam,
      success: ConnectedAppList
    }).annotateMerge(OpenApi.annotations({
      summary: "List connected apps",
      description:
        "Assistants a person approved on the consent page (OAuth), newest first, at most 100: the role each was given and who approved it."
    })),
    HttpApiEndpoint.delete("revoke", "/api/apps/:customerId/:grantId", {
      params: { ...CustomerIdParam, grantId: PathId },
      success: Schema.Struct({ revoked: Schema.Boolean }),
      error: NotFoundError
    }).annotate(RequiredRole, "editor").annotateMerge(OpenApi.annotations({
      summary: "Disconnect an app",
      description:
        "Its access and refresh tokens stop working at once. An admin disconnects any app of the customer; " +
        "an editor only the apps they approved (404 for the rest); a viewer, who changes nothing, none."
    }))
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Connected apps", description: "Assistants signed in with OAuth" }))
{}
