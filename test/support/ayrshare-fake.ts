/**
 * A local server speaking Ayrshare's REST protocol as its documentation
 * describes it (https://www.ayrshare.com/docs/apis): Bearer API key,
 * `Profile-Key` header for user profiles, and
 * - POST /api/profiles {title} -> {status, title, refId, profileKey}
 * - POST /api/profiles/generateJWT {domain, privateKey, profileKey, redirect} -> {status, title, token, url}
 * - POST /api/post {post, platforms, mediaUrls?, scheduleDate?, notes?} -> {status, errors, postIds: [{status, id, platform, postUrl}], id, refId, post}
 * - DELETE /api/post {id} -> {status, ...}
 * - GET /api/history?lastDays&limit -> {history: [{id, post, platforms, postIds, status, notes, created, ...}]}
 * - GET /api/user -> {activeSocialAccounts, displayNames: [{platform, displayName, username}]}
 * - POST /api/analytics/post {id, platforms} -> {<platform>: {id, postUrl, analytics: {...}}, status}
 * Errors: {status: "error", code, message} with 4xx, as Ayrshare answers.
 * Test controls: `mode` (up, down, refuse, lose-answer, hold, late), counters, `link(profileKey, platforms)`,
 * `gate()` (requests wait, then are answered in the mode of the moment they are let through).
 * `late`: a slow provider that makes the post 3 s into the request, then loses the answer.
 */
import { randomBytes, randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { type AddressInfo, createServer as createNetServer } from "node:net"

export type FakeMode = "up" | "down" | "refuse" | "lose-answer" | "hold" | "late"

export interface FakePost {
  readonly id: string
  readonly profileKey: string
  readonly post: string
  readonly platforms: ReadonlyArray<string>
  readonly mediaUrls: ReadonlyArray<string>
  readonly scheduleDate: string | undefined
  readonly notes: string | undefined
  readonly created: string
  status: "success" | "pending" | "deleted" | "error"
}

export interface AyrshareFake {
  readonly url: string
  /** The same server reached at another loopback address: a second client's requests can be told apart by their Host. */
  readonly aliasUrl: string
  readonly apiKey: string
  mode: FakeMode
  readonly posts: Array<FakePost>
  readonly profiles: Map<string, { title: string; refId: string; linked: Set<string> }>
  readonly requests: Array<{ method: string; path: string; headers: IncomingMessage["headers"]; body: unknown }>
  /** Marks platforms as linked for a profile (what the person does on Ayrshare's linking page). */
  readonly link: (profileKey: string, platforms: ReadonlyArray<string>) => void
  /** Resolves when a post request has been received (in `hold` mode it is never answered). */
  readonly nextPost: () => Promise<FakePost>
  /**
   * Holds every request that arrives from now on until `open` is called; each is then answered in the mode
   * of that moment, so a test decides how a try it caught in flight ends.
   */
  readonly gate: () => Gate
  /** Posts whose `notes` name this content id (live ones). */
  readonly postsFor: (contentId: string) => ReadonlyArray<FakePost>
  readonly close: () => Promise<void>
}

export interface Gate {
  /** Resolves with the route (`POST /api/post`) of the first request held. */
  readonly reached: Promise<string>
  readonly open: () => void
}

const readBody = (req: IncomingMessage) =>
  new Promise<unknown>((resolve) => {
    let text = ""
    req.on("data", (chunk) => (text += String(chunk)))
    req.on("end", () => {
      try {
        resolve(text.length === 0 ? undefined : JSON.parse(text))
      } catch {
        resolve(undefined)
      }
    })
  })

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(body))
}

export const startAyrshareFake = async (
  apiKey = `AYR-${randomBytes(8).toString("hex")}`,
  // Ayrshare's one minute; a test may shorten it, telling the service the same (AYRSHARE_HISTORY_CACHE_SECONDS).
  historyCacheMs = 60_000
): Promise<AyrshareFake> => {
  const posts: Array<FakePost> = []
  const historyCache = new Map<string, { at: number; history: Array<unknown> }>()
  const profiles = new Map<string, { title: string; refId: string; linked: Set<string> }>()
  const requests: AyrshareFake["requests"] = []
  const waiters: Array<(post: FakePost) => void> = []
  const held: Array<ServerResponse> = []
  let gated:
    | { readonly wait: Promise<void>; readonly arrived: (route: string) => void; readonly open: () => void }
    | undefined
  const fake = {
    url: "",
    aliasUrl: "",
    apiKey,
    mode: "up" as FakeMode,
    posts,
    profiles,
    requests,
    link: (profileKey: string, platforms: ReadonlyArray<string>) => {
      for (const p of platforms) profiles.get(profileKey)?.linked.add(p)
    },
    nextPost: () => new Promise<FakePost>((resolve) => waiters.push(resolve)),
    gate: (): Gate => {
      let open = () => {}
      let arrived = (_route: string) => {}
      const wait = new Promise<void>((resolve) => (open = resolve))
      const reached = new Promise<string>((resolve) => (arrived = resolve))
      const current = {
        wait,
        arrived: (route: string) => arrived(route),
        open: () => {
          if (gated === current) gated = undefined
          open()
        }
      }
      gated = current
      return { reached, open: current.open }
    },
    postsFor: (contentId: string) => posts.filter((p) => p.notes === `herald:${contentId}` && p.status !== "deleted"),
    close: async () => {
      gated?.open()
      for (const res of held) res.destroy()
      alias.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake")
    const body = await readBody(req)
    requests.push({ method: req.method ?? "", path: url.pathname, headers: req.headers, body })
    if (gated !== undefined) {
      const gate = gated
      gate.arrived(`${req.method} ${url.pathname}`)
      await gate.wait
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return send(res, 403, { action: "authorization", status: "error", code: 102, message: "API Key not valid." })
    }
    if (fake.mode === "down") return send(res, 503, { status: "error", code: 500, message: "Service unavailable" })
    const profileKey = req.headers["profile-key"]
    const profile = typeof profileKey === "string" ? profiles.get(profileKey) : undefined
    const needProfile = () => {
      if (profile === undefined) {
        send(res, 400, { action: "request", status: "error", code: 105, message: "Profile Key not found." })
        return false
      }
      return true
    }
    const b = (body ?? {}) as Record<string, any>
    const route = `${req.method} ${url.pathname}`
    switch (route) {
      case "POST /api/profiles": {
        if (typeof b.title !== "string") return send(res, 400, { status: "error", code: 146, message: "Missing title" })
        const key = `${randomUUID().toUpperCase().slice(0, 7)}-${randomBytes(6).toString("hex").toUpperCase()}`
        const refId = randomBytes(20).toString("hex")
        profiles.set(key, { title: b.title, refId, linked: new Set() })
        return send(res, 200, { status: "success", title: b.title, refId, profileKey: key })
      }
      case "POST /api/profiles/generateJWT": {
        if (typeof b.domain !== "string" || typeof b.privateKey !== "string" || !profiles.has(b.profileKey)) {
          return send(res, 400, {
            status: "error",
            code: 189,
            message: "Error generating JWT: domain, privateKey and profileKey required"
          })
        }
        const token = randomBytes(24).toString("base64url")
        const redirect = typeof b.redirect === "string" ? `&redirect=${encodeURIComponent(b.redirect)}` : ""
        return send(res, 200, {
          status: "success",
          title: profiles.get(b.profileKey)!.title,
          token,
          url: `https://profile.ayrshare.com?domain=${encodeURIComponent(b.domain)}&jwt=${token}${redirect}`,
          emailSent: false,
          expiresIn: "5m"
        })
      }
      case "GET /api/user": {
        if (!needProfile()) return
        const linked = [...profile!.linked]
        return send(res, 200, {
          activeSocialAccounts: linked,
          displayNames: linked.map((platform) => ({
            platform,
            displayName: `${platform} user`,
            username: `${platform}_user`
          })),
          title: profile!.title,
          refId: profile!.refId
        })
      }
      case "POST /api/post": {
        if (!needProfile()) return
        if (fake.mode === "refuse") {
          return send(res, 400, {
            status: "error",
            errors: [{
              action: "post",
              status: "error",
              code: 110,
              message: "Status is a duplicate.",
              platform: b.platforms?.[0]
            }],
            postIds: [],
            id: undefined
          })
        }
        const platforms: Array<string> = Array.isArray(b.platforms) ? b.platforms : []
        const unlinked = platforms.filter((p) => !profile!.linked.has(p))
        if (typeof b.post !== "string" || platforms.length === 0 || unlinked.length > 0) {
          return send(res, 400, {
            status: "error",
            errors: unlinked.map((platform) => ({
              action: "post",
              status: "error",
              code: 156,
              message: `${platform} is not linked`,
              platform
            })),
            postIds: []
          })
        }
        const late = fake.mode === "late"
        if (late) await new Promise((resolve) => setTimeout(resolve, 3000))
        const post: FakePost = {
          id: randomBytes(10).toString("base64url"),
          profileKey: profileKey as string,
          post: b.post,
          platforms,
          mediaUrls: Array.isArray(b.mediaUrls) ? b.mediaUrls : [],
          scheduleDate: typeof b.scheduleDate === "string" ? b.scheduleDate : undefined,
          notes: typeof b.notes === "string" ? b.notes : undefined,
          created: new Date().toISOString(),
          status: typeof b.scheduleDate === "string" ? "pending" : "success"
        }
        posts.push(post)
        for (const wake of waiters.splice(0)) wake(post)
        if (fake.mode === "hold") {
          held.push(res)
          return
        }
        if (fake.mode === "lose-answer" || late) {
          return send(res, 502, { status: "error", code: 500, message: "Bad gateway" })
        }
        return send(res, 200, {
          status: post.status === "pending" ? "scheduled" : "success",
          errors: [],
          postIds: platforms.map((platform) => ({
            status: "success",
            id: randomBytes(8).toString("hex"),
            platform,
            postUrl: `https://social.example/${platform}/${post.id}`
          })),
          id: post.id,
          refId: profile!.refId,
          post: post.post,
          ...(post.scheduleDate === undefined ? {} : { scheduleDate: post.scheduleDate })
        })
      }
      case "DELETE /api/post": {
        if (!needProfile()) return
        const found = posts.find((p) => p.id === b.id && p.profileKey === profileKey)
        if (found === undefined) return send(res, 404, { status: "error", code: 109, message: "Post ID not found." })
        found.status = "deleted"
        return send(res, 200, { status: "success", id: found.id })
      }
      case "GET /api/history": {
        if (!needProfile()) return
        const limit = Number(url.searchParams.get("limit") ?? 25)
        // Ayrshare: "history results are cached for 1 minute if limit is greater than the default 25".
        const cached = historyCache.get(String(profileKey))
        if (limit > 25 && cached !== undefined && Date.now() - cached.at < historyCacheMs) {
          return send(res, 200, {
            history: cached.history,
            refId: profile!.refId,
            count: cached.history.length,
            lastUpdated: new Date(cached.at).toISOString()
          })
        }
        const history = posts
          .filter((p) => p.profileKey === profileKey && p.status !== "deleted")
          .reverse()
          .slice(0, limit)
          .map((p) => ({
            id: p.id,
            post: p.post,
            platforms: p.platforms,
            postIds: p.platforms.map((platform) => ({
              status: p.status === "error" ? "error" : "success",
              id: p.id,
              platform,
              postUrl: `https://social.example/${platform}/${p.id}`
            })),
            errors: [],
            type: p.scheduleDate === undefined ? "now" : "scheduled",
            notes: p.notes,
            created: p.created,
            status: p.status
          }))
        if (limit > 25) historyCache.set(String(profileKey), { at: Date.now(), history })
        return send(res, 200, {
          history,
          refId: profile!.refId,
          count: history.length,
          lastUpdated: new Date().toISOString()
        })
      }
      case "POST /api/analytics/post": {
        if (!needProfile()) return
        const found = posts.find((p) => p.id === b.id && p.profileKey === profileKey)
        if (found === undefined) return send(res, 400, { status: "error", code: 109, message: "Post ID not found." })
        const out: Record<string, unknown> = { status: "success", id: found.id }
        for (const platform of Array.isArray(b.platforms) ? b.platforms : found.platforms) {
          out[platform] = {
            id: found.id,
            postUrl: `https://social.example/${platform}/${found.id}`,
            analytics: { impressionCount: 120, likeCount: 7, replyCount: 2, retweetCount: 1 }
          }
        }
        return send(res, 200, out)
      }
      default:
        return send(res, 404, { status: "error", code: 404, message: "Not found" })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  const address = server.address()
  ;(fake as { url: string }).url = `http://127.0.0.1:${
    typeof address === "object" && address !== null ? address.port : 0
  }`
  const alias = createNetServer((socket) => server.emit("connection", socket))
  await new Promise<void>((resolve) => alias.listen(0, "127.0.0.2", () => resolve()))
  ;(fake as { aliasUrl: string }).aliasUrl = `http://127.0.0.2:${(alias.address() as AddressInfo).port}`
  return fake
}
