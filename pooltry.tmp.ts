import { Effect } from "effect"
import http from "node:http"
import { makePool } from "./src/platform/PagePool.ts"
import { scanJob } from "./src/features/scan/jobs.ts"
const server = http.createServer((req, res) => { if (req.url === "/") console.log("hit", Math.round(performance.now())); setTimeout(() => { res.setHeader("content-type", "text/html"); res.end("<html><body>x</body></html>") }, req.url === "/" ? 700 : 0) })
await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
const url = `http://127.0.0.1:${(server.address() as any).port}/`
await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
  const pool = yield* makePool({ workers: 4, memoryMb: 256, timeoutMs: 20000 })
  const job = { ...scanJob, input: { url, options: { allowPrivateTargets: true } } }
  const t = performance.now()
  const r = yield* Effect.all([pool.run(job), pool.run(job)], { concurrency: "unbounded" })
  console.log("first", Math.round(performance.now() - t), JSON.stringify(r).slice(0, 100))
  for (let i = 0; i < 3; i++) {
    const t2 = performance.now()
    console.log("start", Math.round(t2))
    yield* Effect.all([pool.run(job), pool.run(job), pool.run(job)], { concurrency: "unbounded" })
    console.log("three", Math.round(performance.now() - t2))
  }
})))
server.close()
