/**
 * `npm run cluster -- N`: N Herald processes on the PostgreSQL of
 * DATABASE_URL and the Redis of REDIS_URL, behind nginx with round-robin on a
 * loopback port, until Ctrl-C or SIGTERM stops them (each instance shuts down
 * gracefully, then nginx). Installs nothing: it says what is missing.
 */
import { type Cluster, missingPrerequisites, startCluster } from "./support/cluster-kit.ts"

const usage = "usage: npm run cluster -- [instances 1-16] (DATABASE_URL and REDIS_URL set; nginx installed)"
const count = Number(process.argv[2] ?? "3")
if (!Number.isInteger(count) || count < 1 || count > 16) {
  console.error(usage)
  process.exit(2)
}

const databaseUrl = process.env.DATABASE_URL
const redisUrl = process.env.REDIS_URL
const missing = await missingPrerequisites(databaseUrl, redisUrl)
if (missing.length > 0) {
  console.error(`cluster: cannot start; missing:\n${missing.map((m) => `  - ${m}`).join("\n")}\n${usage}`)
  process.exit(1)
}

console.log(`cluster: starting ${count} instance${count === 1 ? "" : "s"}...`)
let cluster: Cluster
try {
  cluster = await startCluster({ count, databaseUrl: databaseUrl!, redisUrl: redisUrl! })
} catch (error) {
  console.error(`cluster: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}

for (const member of cluster.members) {
  console.log(
    `  ${member.tag}  http://127.0.0.1:${member.port}  pid ${member.service?.child.pid}  runner 127.0.0.1:${member.port}`
  )
  member.service?.exited.then(({ code, signal }) => {
    if (!stopping) console.error(`cluster: ${member.tag} exited (${code ?? signal}); the others go on serving`)
  })
}
console.log(`cluster: nginx round-robin at ${cluster.url} (configuration ${cluster.nginx.configPath})`)
console.log("cluster: Ctrl-C stops the set")

let stopping = false
const stop = async (signal: NodeJS.Signals) => {
  if (stopping) return
  stopping = true
  console.log(`cluster: ${signal}: stopping the instances, then nginx`)
  await cluster.stop()
  console.log("cluster: stopped")
  process.exit(0)
}
process.on("SIGINT", (signal) => void stop(signal))
process.on("SIGTERM", (signal) => void stop(signal))
