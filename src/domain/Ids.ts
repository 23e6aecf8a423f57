import { Schema } from "effect"
import { randomUUID } from "node:crypto"
import { PathId } from "./Text.ts"

/**
 * Ids of different things are all text on the wire and in the database, so a
 * swapped pair (a content id where a customer id belongs) would otherwise
 * type-check. Each kind is branded: decoding at the edge (path, body, tool
 * arguments) and typed SQL rows produce the branded value, and services take
 * and return it. A brand is a compile-time mark only: it adds no check, no
 * error text and nothing to the JSON Schema or OpenAPI document.
 */

export const CustomerId = Schema.String.pipe(Schema.brand("CustomerId"))
export type CustomerId = typeof CustomerId.Type

export const ContentId = Schema.String.pipe(Schema.brand("ContentId"))
export type ContentId = typeof ContentId.Type

/** A workflow run. */
export const RunId = Schema.String.pipe(Schema.brand("RunId"))
export type RunId = typeof RunId.Type

export const ScanId = Schema.String.pipe(Schema.brand("ScanId"))
export type ScanId = typeof ScanId.Type

/** A webhook subscription. */
export const WebhookId = Schema.String.pipe(Schema.brand("WebhookId"))
export type WebhookId = typeof WebhookId.Type

/**
 * Path ids: `PathId` (any text, an id that names nothing is a 404) with the
 * brand of what it names. Branding keeps the schema's AST, so the OpenAPI
 * generator still recognises them as path ids that take any text.
 */
export const ContentIdPath = PathId.pipe(Schema.brand("ContentId"))
export const RunIdPath = PathId.pipe(Schema.brand("RunId"))
export const ScanIdPath = PathId.pipe(Schema.brand("ScanId"))
export const WebhookIdPath = PathId.pipe(Schema.brand("WebhookId"))

/** `length` (at most 32) random hex digits. */
const hex = (length: number) => randomUUID().replaceAll("-", "").slice(0, length)

// Minting: each kind keeps the shape its ids have always had (customers a UUID, the rest a prefix and hex digits).
export const newCustomerId = (): CustomerId => CustomerId.make(randomUUID())
export const newContentId = (): ContentId => ContentId.make(`cnt_${hex(32)}`)
export const newRunId = (): RunId => RunId.make(`run_${hex(32)}`)
export const newScanId = (): ScanId => ScanId.make(`scan_${hex(24)}`)
export const newWebhookId = (): WebhookId => WebhookId.make(`wh_${hex(24)}`)
