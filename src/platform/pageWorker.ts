import { AsyncLocalStorage } from "node:async_hooks"

/**
 * A page pool worker (a child process): loads the job modules it is started
 * with, says it is ready, then runs one job at a time, a function exported by
 * the module the job names, and answers its value or the reason it threw.
 * Every message about a job carries its id. Anything a job leaves behind that
 * fails later (a rejected promise nobody awaited, an exception in a callback)
 * ends this worker; before it goes it names the job that left it (each job
 * runs in its own async context, which its timers and promises inherit), so
 * the pool fails that job only if it is the one running, and otherwise puts
 * the running job back for another worker. The service itself never sees it.
 */
interface Request {
  readonly id: number
  readonly module: string
  readonly name: string
  readonly input: unknown
}

const answer = (message: unknown) => process.send?.(message)

const reasonOf = (error: unknown) => error instanceof Error ? error.message : String(error)

/** The id of the job whose code is running: set for the job and everything it schedules. */
const owner = new AsyncLocalStorage<number>()

let dying = false
const die = (error: unknown) => {
  if (dying) return
  dying = true
  const message = {
    crashed: true,
    id: owner.getStore() ?? null,
    reason: `processing the page failed (${reasonOf(error)})`
  }
  // Exit once the message is on its way; if the channel is gone, at once.
  if (process.send === undefined || !process.connected) process.exit(1)
  process.send(message, () => process.exit(1))
}
process.on("uncaughtException", die)
process.on("unhandledRejection", die)

process.on("message", (request: Request) => {
  owner.run(request.id, () => {
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
})

// The service going away (its end of the channel closed) ends the worker too.
process.on("disconnect", () => process.exit(0))

// A module that fails to load fails the first job naming it, with its reason. A module may export
// `warm`, run once here so that the first job does not pay for a cold process.
await Promise.allSettled(
  process.argv.slice(2).map(async (module) => {
    const loaded: Record<string, unknown> = await import(module)
    if (typeof loaded.warm === "function") await loaded.warm()
  })
)
answer({ ready: true })
