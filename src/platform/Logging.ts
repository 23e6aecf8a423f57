import { Formatter, Logger } from "effect"

const isPlain = (value: unknown): boolean =>
  value === null || value === undefined || typeof value === "string" || typeof value === "number" ||
  typeof value === "boolean"

const allPlain = (record: Readonly<Record<string, unknown>>): boolean => {
  for (const key in record) if (!isPlain(record[key])) return false
  return true
}

/**
 * effect's JSON log line, the same text, cheaper for the common line. Its
 * formatter runs a replacer over every key (redaction, cycles, getters),
 * which made the one request line per request cost more than the rest of a
 * health check; a line whose message and annotations are strings, numbers,
 * booleans or null has nothing for the replacer to do, so plain
 * `JSON.stringify` writes it. Anything else (a Redacted value, an object,
 * an error) still goes through effect's formatter.
 */
export const formatJson = Logger.map(
  Logger.formatStructured,
  (entry) =>
    isPlain(entry.message) && allPlain(entry.annotations) && allPlain(entry.spans)
      ? JSON.stringify(entry)
      : Formatter.formatJson(entry)
)

/** `Logger.consoleJson` with the cheaper formatter. */
export const consoleJson = Logger.withConsoleLog(formatJson)
