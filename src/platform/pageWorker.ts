/**
 * A page pool worker (a child process): loads the job modules it is started
 * with, says it is ready, then runs one job at a time, a function exported by
 * the module the job names, and answers its value or the reason it threw.
 * Anything a job leaves behind that fails later (a rejected promise nobody
 * awaited, an exception in a callback) ends this worker, which the pool
 * reports as that job's failure: the service itself never sees it.
 */
interface Request {
  readonly id: number
  readonly module: string
  readonly name: string
  readonly input: unknown
}

const answer = (message: unknown) => process.send?.(message)

const reasonOf = (error: unknown) => error instanceof Error ? error.message : String(error)

process.on("message", (request: Request) => {
  import(request.module)
    .then((module: Record<string, unknown>) => {
      const job = module[request.name]
      if (typeof job !== "function") throw new Error(`no job ${request.name} in ${request.module}`)
      return job(request.input)
    })
    .then(
      (value) => answer({ id: request.id, ok: true, value }),
      (error) => answer({ id: request.id, ok: false, reason: `processing the page failed (${reasonOf(error)})` })
    )
})

// The service going away (its end of the channel closed) ends the worker too.
process.on("disconnect", () => process.exit(0))

// A module that fails to load fails the first job naming it, with its reason. A module may export
// `warm`, run once here so that the first job does not pay for a cold process.
await Promise.allSettled(process.argv.slice(2).map(async (module) => {
  const loaded: Record<string, unknown> = await import(module)
  if (typeof loaded.warm === "function") await loaded.warm()
}))
answer({ ready: true })
