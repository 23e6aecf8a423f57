import { type SchemaAST, SchemaIssue } from "effect"

/**
 * Validation failures in one wording, whoever raised them (a schema's own
 * check, a bound, a platform rule): `{path, message}` with messages such as
 * "is required", "must be a string", "must be at most 280 characters",
 * "must have at least 1 item", "must be one of: a, b". Every failing field is
 * listed, not only the first.
 */
export interface Detail {
  readonly path: string
  readonly message: string
}

type Json = Record<string, any>

const fallback = SchemaIssue.makeFormatterStandardSchemaV1()

/** A message written by whoever declared the rule ("must be an email address"). */
const ownMessage = (issue: Json): string | undefined => {
  const message = issue.annotations?.message ?? issue.filter?.annotations?.message
  return typeof message === "string" ? message : undefined
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** A bound on a length: characters for text, items for lists. */
const lengthMessage = (kind: "at most" | "at least", n: number, container: string | undefined) =>
  container === "Arrays" || container === "Objects"
    ? `must have ${kind} ${plural(n, container === "Arrays" ? "item" : "property")}`
    : kind === "at least" && n === 1
    ? "must not be empty"
    : `must be ${kind} ${plural(n, "character")}`

/** The message of a built-in check, from its representation (`isMaxLength`, `isBetween`, ...). */
const checkMessage = (annotations: Json | undefined, container: string | undefined): string | undefined => {
  const id: unknown = annotations?.representation?.id
  const payload: Json = annotations?.representation?.payload ?? {}
  switch (id) {
    case "effect/schema/isMaxLength":
      return lengthMessage("at most", payload.maxLength, container)
    case "effect/schema/isMinLength":
      return lengthMessage("at least", payload.minLength, container)
    case "effect/schema/isMaxProperties":
      return `must have at most ${plural(payload.maxProperties, "property")}`
    case "effect/schema/isInt":
      return "must be an integer"
  }
  const expected: unknown = annotations?.expected
  if (typeof expected !== "string") return undefined
  const atMost = /^a value with a length of at most (\d+)$/.exec(expected)
  if (atMost !== null) return lengthMessage("at most", Number(atMost[1]), container)
  const atLeast = /^a value with a length of at least (\d+)$/.exec(expected)
  if (atLeast !== null) return lengthMessage("at least", Number(atLeast[1]), container)
  const bound = /^a value (greater|less) than( or equal to)? (-?[\d.e+]+)$/.exec(expected)
  if (bound !== null) {
    const [, side, orEqual, n] = bound
    return orEqual !== undefined
      ? `must be ${side === "greater" ? "at least" : "at most"} ${n}`
      : `must be ${side} than ${n}`
  }
  const between = /^a value between (-?[\d.e+]+) and (-?[\d.e+]+)$/.exec(expected)
  if (between !== null) return `must be between ${between[1]} and ${between[2]}`
  return `must be ${expected}`
}

const typeNames: Record<string, string> = {
  String: "a string",
  Number: "a number",
  Boolean: "a boolean",
  Objects: "an object",
  Arrays: "an array",
  Null: "null",
  BigInt: "an integer"
}

/** The literal values of a union of literals, or undefined when it holds anything else. */
const literalsOf = (ast: SchemaAST.AST | undefined): Array<string> | undefined => {
  if (ast === undefined) return undefined
  if (ast._tag === "Literal") return [String(ast.literal)]
  if (ast._tag !== "Union") return undefined
  const all: Array<string> = []
  for (const member of ast.types) {
    const values = literalsOf(member)
    if (values === undefined) return undefined
    all.push(...values)
  }
  return all
}

const typeMessage = (ast: SchemaAST.AST | undefined): string | undefined => {
  const literals = literalsOf(ast)
  if (literals !== undefined) {
    return literals.length === 1
      ? `must be ${literals[0]}`
      : `must be one of: ${literals.join(", ")}`
  }
  const name = ast === undefined ? undefined : typeNames[ast._tag]
  return name === undefined ? undefined : `must be ${name}`
}

/** The issues of a failed decode, one detail per offending field, in one wording. */
export const describeIssues = (
  root: SchemaIssue.Issue
): Array<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }> => {
  const out: Array<{ path: ReadonlyArray<PropertyKey>; message: string }> = []
  const other = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>) => {
    for (const found of fallback(issue).issues) {
      out.push({
        path: [...path, ...(found.path ?? []).map((p) => (typeof p === "object" ? p.key : p))],
        message: found.message
      })
    }
  }
  const walk = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>, container: string | undefined): void => {
    const node = issue as unknown as Json
    const own = ownMessage(node)
    switch (issue._tag) {
      case "Pointer":
        return walk(issue.issue, [...path, ...issue.path], container)
      case "Composite":
        for (const child of issue.issues) walk(child, path, issue.ast._tag)
        return
      case "Encoding":
        return own !== undefined ? void out.push({ path, message: own }) : walk(issue.issue, path, container)
      case "Filter": {
        const message = own ?? checkMessage(node.filter?.annotations, container)
        if (message !== undefined) return void out.push({ path, message })
        return walk(issue.issue, path, container)
      }
      case "MissingKey":
        return void out.push({ path, message: own ?? "is required" })
      case "UnexpectedKey":
        return void out.push({ path, message: "is not an allowed property" })
      case "InvalidType": {
        const message = own ?? typeMessage(issue.ast)
        return message === undefined ? other(issue, path) : void out.push({ path, message })
      }
      case "AnyOf": {
        const message = own ?? typeMessage(issue.ast)
        if (message !== undefined) return void out.push({ path, message })
        // One member was the candidate (a body's encodings, a nullable value): its own failures say more.
        return issue.issues.length === 1 ? walk(issue.issues[0], path, container) : other(issue, path)
      }
      case "InvalidValue": {
        const expected: unknown = node.annotations?.expected
        const message = own ?? (typeof expected === "string" ? checkMessage({ expected }, container) : undefined)
        return message === undefined ? other(issue, path) : void out.push({ path, message })
      }
      default:
        return own !== undefined ? void out.push({ path, message: own }) : other(issue, path)
    }
  }
  walk(root, [], undefined)
  return out
}

/** The details of a failed decode with each path under `root` ("body", "query", "arguments"): `body.url`. */
export const detailsUnder = (root: string, issue: SchemaIssue.Issue): Array<Detail> =>
  describeIssues(issue).map((found) => ({ path: [root, ...found.path.map(String)].join("."), message: found.message }))

/** The one-line text of a validation failure, naming its first field: "Invalid body.url: is required". */
export const invalidText = (details: ReadonlyArray<Detail>): string => {
  const head = details[0]
  return head === undefined ? "Invalid request" : `Invalid ${head.path}: ${head.message}`
}
