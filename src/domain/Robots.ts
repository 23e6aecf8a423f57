/**
 * robots.txt: matching as Lighthouse does it (it uses `robots-parser` 3.x;
 * this is the same algorithm: groups by user-agent token, longest pattern
 * wins, an allow beats a disallow of equal length, `*` and a final `$`), and
 * Lighthouse's own validator (`robots-txt` audit). Pure functions.
 */

interface Rule {
  readonly pattern: string
  readonly allow: boolean
  readonly line: number
}

export interface RobotsTxt {
  readonly origin: URL
  /** Rules per lower-case user-agent token; a group with no rule is an empty list. */
  readonly groups: ReadonlyMap<string, ReadonlyArray<Rule>>
  readonly sitemaps: ReadonlyArray<string>
}

/** The product token a crawler is matched by: lower case, up to a `/` version. */
export const userAgentToken = (userAgent: string): string => {
  const lower = userAgent.toLowerCase()
  const slash = lower.indexOf("/")
  return (slash === -1 ? lower : lower.slice(0, slash)).trim()
}

const upperEscapes = (path: string) => path.replace(/%[0-9a-fA-F]{2}/g, (m) => m.toUpperCase())

const normaliseEncoding = (path: string): string => {
  try {
    return upperEscapes(encodeURI(path).replace(/%25/g, "%"))
  } catch {
    return path
  }
}

/** Whether `pattern` (with `*` wildcards and an optional final `$`) matches the start of `path`. */
export const patternMatches = (pattern: string, path: string): boolean => {
  // The set of path lengths matched so far, kept sorted ascending.
  let lengths: Array<number> = [0]
  for (let p = 0; p < pattern.length; p++) {
    if (pattern[p] === "$" && p + 1 === pattern.length) return lengths[lengths.length - 1] === path.length
    if (pattern[p] === "*") {
      const from = lengths[0]
      lengths = Array.from({ length: path.length - from + 1 }, (_, i) => from + i)
    } else {
      const next: Array<number> = []
      for (const length of lengths) {
        if (length < path.length && path[length] === pattern[p]) next.push(length + 1)
      }
      if (next.length === 0) return false
      lengths = next
    }
  }
  return true
}

const withPort = (url: URL) => url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80"

/** Parses `content`, the robots.txt of `robotsUrl`'s origin. */
export const parseRobots = (robotsUrl: string, content: string): RobotsTxt => {
  const groups = new Map<string, Array<Rule>>()
  const sitemaps: Array<string> = []
  let agents: Array<string> = []
  let previousWasAgent = false
  const lines = content.split(/\r\n|\r|\n/)
  lines.forEach((raw, index) => {
    const hash = raw.indexOf("#")
    const text = hash === -1 ? raw : raw.slice(0, hash)
    const colon = text.indexOf(":")
    if (text.length === 0 || colon < 0) return
    const name = text.slice(0, colon).trim().toLowerCase()
    const value = text.slice(colon + 1).trim()
    if (name.length === 0) return
    const ensure = (agent: string) => {
      let rules = groups.get(agent)
      if (rules === undefined) groups.set(agent, rules = [])
      return rules
    }
    switch (name) {
      case "user-agent":
        if (!previousWasAgent) agents = []
        if (value.length > 0) agents.push(userAgentToken(value))
        break
      case "allow":
      case "disallow":
        for (const agent of agents) {
          const rules = ensure(agent)
          if (value.length > 0) {
            rules.push({ pattern: normaliseEncoding(value), allow: name === "allow", line: index + 1 })
          }
        }
        break
      case "crawl-delay":
        for (const agent of agents) ensure(agent)
        break
      case "sitemap":
        if (value.length > 0) sitemaps.push(value)
        break
    }
    previousWasAgent = name === "user-agent"
  })
  return { origin: new URL(robotsUrl), groups, sitemaps }
}

const findRule = (path: string, rules: ReadonlyArray<Rule>): Rule | undefined => {
  let matched: Rule | undefined
  for (const rule of rules) {
    if (!patternMatches(rule.pattern, path)) continue
    if (matched === undefined || rule.pattern.length > matched.pattern.length) matched = rule
    else if (rule.pattern.length === matched.pattern.length && rule.allow && !matched.allow) matched = rule
  }
  return matched
}

/**
 * Whether `userAgent` (undefined: the generic `*` group) may fetch `url`. A URL
 * of another origin than the file's is not covered: Lighthouse counts that as
 * blocked, and so does this (it never happens for a page and its own robots.txt).
 */
export const isAllowed = (robots: RobotsTxt, url: string, userAgent?: string): boolean => {
  let target: URL
  try {
    target = new URL(url, "http://robots-relative.invalid/")
  } catch {
    return false
  }
  if (
    target.protocol !== robots.origin.protocol || target.hostname !== robots.origin.hostname ||
    withPort(target) !== withPort(robots.origin)
  ) return false
  const token = userAgentToken(userAgent ?? "*")
  const rules = robots.groups.get(token) ?? robots.groups.get("*") ?? []
  const rule = findRule(upperEscapes(target.pathname + target.search), rules)
  return rule === undefined || rule.allow
}

// ---- Lighthouse's robots-txt validator ---------------------------------------

const safelist = new Set([
  "user-agent",
  "disallow",
  "allow",
  "sitemap",
  "crawl-delay",
  "clean-param",
  "host",
  "request-rate",
  "visit-time",
  "noindex",
  "content-signal"
])

export interface RobotsError {
  readonly line: number
  readonly text: string
  readonly message: string
}

const directiveError = (name: string, value: string): string | undefined => {
  if (!safelist.has(name)) return "Unknown directive"
  if (name === "sitemap") {
    const url = URL.parse(value)
    if (url === null) return "Invalid sitemap URL"
    if (!["https:", "http:", "ftp:"].includes(url.protocol)) return "Invalid sitemap URL protocol"
  }
  if (name === "user-agent" && value.length === 0) return "No user-agent specified"
  if (name === "allow" || name === "disallow") {
    if (value !== "" && value[0] !== "/" && value[0] !== "*") {
      return "Pattern should either be empty, start with \"/\" or \"*\""
    }
    const dollar = value.indexOf("$")
    if (dollar !== -1 && dollar !== value.length - 1) return "\"$\" should only be used at the end of the pattern"
  }
  return undefined
}

/** Every line Lighthouse's `robots-txt` audit reports as an error; none means valid. */
export const validateRobots = (content: string): ReadonlyArray<RobotsError> => {
  const errors: Array<RobotsError> = []
  let inGroup = false
  content.split(/\r\n|\r|\n/).forEach((text, index) => {
    const hash = text.indexOf("#")
    const line = (hash === -1 ? text : text.slice(0, hash)).trim()
    if (line.length === 0) return
    const colon = line.indexOf(":")
    if (colon === -1) {
      errors.push({ line: index + 1, text, message: "Syntax not understood" })
      return
    }
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    const message = directiveError(name, value)
    if (message !== undefined) {
      errors.push({ line: index + 1, text, message })
      return
    }
    if (name === "user-agent") inGroup = true
    else if (!inGroup && (name === "allow" || name === "disallow")) {
      errors.push({ line: index + 1, text, message: "No user-agent specified" })
    }
  })
  return errors
}
