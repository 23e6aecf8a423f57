import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { featureLayerNames, layerExports, layerName } from "./support/serviceKeys.ts"

const src = fileURLToPath(new URL("../src", import.meta.url))

/** The layers App.ts merges as the app's features, in the order written. */
const appFeatures = (): ReadonlyArray<string> => {
  const text = readFileSync(`${src}/App.ts`, "utf8")
  const list = /const Features = Layer\.mergeAll\(([^)]*)\)/.exec(text)
  assert.isNotNull(list, "App.ts merges its features in `const Features = Layer.mergeAll(...)`")
  return list![1]!.split(",").map((name) => name.trim()).filter((name) => name !== "")
}

describe("naming", () => {
  it("every exported layer is named for its role", () => {
    const layers = layerExports(src)
    assert.isAbove(layers.length, 60, "the layers were read")
    assert.deepStrictEqual(
      layers.filter((layer) => !layerName.test(layer.name)).map((layer) => `${layer.file} ${layer.name}`),
      []
    )
  })

  it("the name rule refuses names that do not say the role", () => {
    for (const name of ["CustomersLive", "SocialServices", "DocsRoutes", "TeamHandlers", "CoreMiddleware"]) {
      assert.match(name, layerName)
    }
    for (const name of ["SocialPages", "ProcessPolicy", "HeraldRunLayer", "AppWithoutConfig", "LiveSocial"]) {
      assert.notMatch(name, layerName)
    }
  })

  it("each feature's Live.ts exports only its own layers, and App.ts merges every feature's Live in a sorted list", () => {
    const layers = layerExports(src)
    const inLiveFiles = layers.filter((layer) => /^features\/[^/]+\/Live\.ts$/.test(layer.file))
    assert.isAbove(inLiveFiles.length, 15, "the features' layers were read")
    const misnamed = inLiveFiles.filter((layer) => !featureLayerNames(layer.file.split("/")[1]!).includes(layer.name))
    assert.deepStrictEqual(misnamed.map((layer) => `${layer.file} ${layer.name}`), [])
    const features = appFeatures()
    assert.deepStrictEqual(features, [...features].sort(), "sorted")
    assert.sameMembers(
      [...features],
      inLiveFiles.filter((layer) => layer.name.endsWith("Live")).map((layer) => layer.name)
    )
  })

  it("the feature rule names the folder", () => {
    assert.deepStrictEqual(featureLayerNames("social"), ["SocialLive", "SocialServices"])
  })
})
