import { Cron } from "croner"

/**
 * Cron schedules in a time zone, with these daylight-saving rules
 * (docs/api-rules.md, "Workflows and runs"): a wall time that does not exist (spring forward) fires once at
 * the first valid instant after it; a wall time that occurs twice (fall back)
 * fires once, at its first occurrence.
 */

/** Why a 5-field cron expression is refused, or undefined when it is valid. */
export const cronProblem = (expression: string): string | undefined => {
  const fields = expression.trim().split(/\s+/)
  if (expression.trim().length === 0 || fields.length !== 5) {
    return "must be a 5-field cron expression (minute hour day month weekday)"
  }
  try {
    const cron = new Cron(expression, { timezone: "UTC" })
    // A year of leap days covers every calendar: no next run within 8 years means never.
    const next = cron.nextRun(new Date(Date.UTC(2000, 0, 1)))
    if (next === null) return "never fires"
    return undefined
  } catch (error) {
    return `is not a valid cron expression (${String((error as Error).message).replace(/^CronPattern:\s*/, "")})`
  }
}

/** Whether `zone` is an IANA time zone name this runtime knows. */
export const isTimeZone = (zone: string): boolean => {
  if (zone.length === 0 || zone.length > 64) return false
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone })
    return true
  } catch {
    return false
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>()
const wallFormatter = (zone: string) => {
  let formatter = formatters.get(zone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-CA", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit"
    })
    formatters.set(zone, formatter)
  }
  return formatter
}

/** The wall-clock time (to the minute) of an instant in a zone. */
export const wallTime = (instant: Date, zone: string): string => wallFormatter(zone).format(instant)

/**
 * Whether `instant` is the second occurrence of its wall time (the repeated
 * hour after a fall-back change): the same wall time was shown up to three
 * hours earlier.
 */
const isRepeatedWallTime = (instant: Date, zone: string): boolean => {
  const wall = wallTime(instant, zone)
  for (let minutes = 15; minutes <= 180; minutes += 15) {
    if (wallTime(new Date(instant.getTime() - minutes * 60_000), zone) === wall) return true
  }
  return false
}

/** The first fire time strictly after `after`, or undefined when the schedule never fires again. */
export const nextFire = (expression: string, zone: string, after: Date): Date | undefined => {
  const cron = new Cron(expression, { timezone: zone })
  let from = after
  for (let guard = 0; guard < 1000; guard++) {
    const next = cron.nextRun(from)
    if (next === null) return undefined
    if (!isRepeatedWallTime(next, zone)) return next
    from = next
  }
  return undefined
}
