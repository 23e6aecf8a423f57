import { Layer } from "effect"
import { Cursors } from "./Cursor.ts"
import { DatabaseLive } from "./Database.ts"
import { Events } from "./Events.ts"
import { Idempotency } from "./Idempotency.ts"
import { AccessTokens, Keys } from "./Keys.ts"
import { Outbox } from "./Outbox.ts"
import { PageAdmission, PagePool } from "./PagePool.ts"
import { RateLimits } from "./RateLimits.ts"

/**
 * The mechanisms every feature stands on, over one migrated database. Each
 * feature provides this same value to its services: layers are memoized by
 * reference for the whole build, so the app opens one pool whatever the
 * number of features.
 */
export const PlatformServices = Layer.mergeAll(
  Cursors.layer,
  Events.layer,
  Idempotency.layer,
  Keys.layer.pipe(Layer.provideMerge(AccessTokens.layer)),
  Outbox.layer,
  PageAdmission.layer,
  PagePool.layer,
  RateLimits.layer
).pipe(Layer.provideMerge(DatabaseLive))

/** The platform in the app: its services and the sweep of expired idempotency replies. */
export const PlatformLive = Idempotency.sweeper.pipe(Layer.provideMerge(PlatformServices))
