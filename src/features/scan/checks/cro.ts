import type { Element } from "domhandler"
import type { CheckOutcome } from "../../../domain/Scan.ts"
import { check, examples, plural } from "./item.ts"
import { elementsIn, type Page, textOf } from "./Page.ts"
import { viewportVerdict } from "./seo.ts"

/** CRO: whether a visitor who lands on the page can act and is reassured enough to. */

const actionWords =
  /\b(?:get|start|try|buy|book|sign ?up|subscribe|contact|request|download|join|shop|order|schedule|call|demo|register|free|quote|apply|donate|talk|add to cart|checkout|claim|reserve|enrol|enroll)\b/i

const labelOf = (page: Page, el: Element): string =>
  el.name === "input" ? (el.attribs.value ?? "").trim() : textOf(el) || (el.attribs["aria-label"] ?? "").trim()

/** Calls to action in document order: action-worded links and buttons, and submit buttons. */
const ctas = (page: Page): ReadonlyArray<{ element: Element; label: string }> =>
  page.$("body a[href], body button, body input[type=submit]").toArray()
    .filter((el) => page.$(el).closest("nav, footer").length === 0)
    .map((el) => ({ element: el, label: labelOf(page, el) }))
    .filter(({ element, label }) =>
      actionWords.test(label) ||
      (element.name !== "a" && label.length > 0 && page.$(element).closest("form").length > 0)
    )

const documentOrder = (page: Page) => {
  const order = new Map<Element, number>()
  page.$("*").toArray().forEach((el, i) => order.set(el as Element, i))
  return order
}

const ctaAboveFold = (page: Page): CheckOutcome => {
  const result = check("cro.cta-above-fold", "cro", "A call to action is visible above the fold", 3)
  const found = ctas(page)
  const fix =
    "Put one clear action (\"Start free trial\", \"Book a demo\") in the first screen, before the first section break."
  if (found.length === 0) {
    return result(
      "fail",
      "No call to action found (a link or button with an action such as Start, Buy, Book, Contact).",
      fix
    )
  }
  const order = documentOrder(page)
  const firstH2 = page.$("h2").first().get(0)
  const fold = firstH2 === undefined ? Number.POSITIVE_INFINITY : order.get(firstH2)!
  const above = found.filter((c) => order.get(c.element)! < fold)
  return above.length > 0
    ? result("pass", `"${above[0].label}" appears before the first section.`)
    : result("warn", `Calls to action only below the first section: ${examples(found.map((c) => c.label))}.`, fix)
}

const fieldNames = new Set(["input", "select", "textarea"])

const fieldsOf = (page: Page, form: Element) =>
  elementsIn(form, fieldNames).filter((el) => {
    const type = (el.attribs.type ?? "text").toLowerCase()
    return !(el.name === "input" && ["hidden", "submit", "button", "reset", "image"].includes(type))
  })

const formLength = (page: Page): CheckOutcome => {
  const forms = page.$("form").toArray()
  if (forms.length === 0) return undefined
  const result = check("cro.form-length", "cro", "Forms ask only what they need", 2)
  const longest = Math.max(...forms.map((f) => fieldsOf(page, f).length))
  const fix = "Cut the form to the fields you need now (5 or fewer converts best); ask the rest later."
  return longest <= 5
    ? result("pass", `The longest form has ${plural(longest, "field")}.`)
    : result(longest <= 8 ? "warn" : "fail", `The longest form has ${longest} fields.`, fix)
}

const trustSignals = (page: Page): CheckOutcome => {
  const result = check("cro.trust-signals", "cro", "Page shows trust signals", 2)
  const text = page.mainText.toLowerCase()
  const marker = (pattern: RegExp) =>
    page.$("[class], [id]").toArray().some((el) => pattern.test(`${el.attribs.class ?? ""} ${el.attribs.id ?? ""}`))
  const kinds = [
    [
      "ratings",
      page.jsonLd.some((n) =>
        n.aggregateRating !== undefined || n.review !== undefined || n["@type"] === "Review" ||
        n["@type"] === "AggregateRating"
      )
    ],
    [
      "testimonials",
      marker(/testimonial|review|quote/i) || /\btestimonials?\b|\bwhat (?:our )?customers say\b/.test(text)
    ],
    [
      "customer logos",
      marker(/logos?|clients|customers|partners/i) || /\btrusted by\b|\bas seen (?:in|on)\b|\bused by\b/.test(text)
    ],
    [
      "guarantees and security",
      /\bguarantee|money[- ]back|refund|secure (?:checkout|payment)|certified|award|gdpr|soc ?2|iso ?27001|cancel any ?time/
        .test(text)
    ]
  ] as const
  const present = kinds.filter(([, found]) => found).map(([name]) => name)
  const fix =
    "Show proof near the call to action: ratings with Review markup, named testimonials, customer logos, a guarantee."
  return present.length >= 2
    ? result("pass", `Trust signals: ${present.join(", ")}.`)
    : present.length === 1
    ? result("warn", `Only one kind of trust signal: ${present[0]}.`, fix)
    : result("fail", "No ratings, testimonials, customer logos or guarantees found.", fix)
}

const contact = (page: Page): CheckOutcome => {
  const result = check("cro.contact", "cro", "Visitors can reach you", 1.5)
  const direct = page.$("a[href^='tel:'], a[href^='mailto:'], address").length > 0 ||
    page.jsonLd.some((n) => n.address !== undefined || n.telephone !== undefined || n.email !== undefined)
  if (direct) return result("pass", "A phone number, email address or postal address is on the page.")
  const link = page.anchors.find((a) =>
    /contact|support|help/i.test(a.rawHref) || /contact|get in touch|support/i.test(a.text)
  )
  const fix =
    "Show a phone number or email address (tel:/mailto: links) or a postal address, not only a contact page link."
  return link !== undefined
    ? result("warn", `Only a contact link: "${link.text || link.rawHref}".`, fix)
    : result("fail", "No contact details or contact link.", fix)
}

/**
 * Whether visitors on phones can use the page. A missing or unusable viewport
 * is one defect, reported once, by seo.viewport: this check leaves it out (not
 * applicable), and judges what only conversion suffers from, zooming disabled.
 */
const mobile = (page: Page): CheckOutcome => {
  const { status, detail } = viewportVerdict(page)
  if (status === "fail") return undefined
  return check("cro.mobile", "cro", "Visitors on phones can zoom", 1.5)(
    status,
    detail,
    "Allow zooming (drop user-scalable=no and maximum-scale=1): visitors on phones enlarge prices, forms and small print."
  )
}

const pageWeight = (page: Page): CheckOutcome => {
  const result = check("cro.page-weight", "cro", "Page is light", 1.5)
  const kib = Math.round(page.bytes / 1024)
  const scripts = page.$("script[src]").length
  const detail = `HTML ${kib} KiB, ${plural(scripts, "external script")}.`
  const fix =
    "Cut the HTML (inline data, unused markup) and the number of scripts; heavy pages lose visitors on mobile networks."
  return kib <= 150 && scripts <= 15
    ? result("pass", detail)
    : kib <= 600 && scripts <= 30
    ? result("warn", detail, fix)
    : result("fail", detail, fix)
}

const responseTime = (page: Page): CheckOutcome => {
  const result = check("cro.response-time", "cro", "Page answers quickly", 1)
  const ms = page.elapsedMs
  const fix = "Serve the page faster (caching, a CDN, less server work): each second of waiting loses visitors."
  return ms < 500
    ? result("pass", `Fetched in ${ms} ms.`)
    : result(ms <= 2000 ? "warn" : "fail", `Fetched in ${ms} ms.`, fix)
}

const ctaClarity = (page: Page): CheckOutcome => {
  const found = ctas(page)
  if (found.length === 0) return undefined
  const result = check("cro.cta-clarity", "cro", "Calls to action are few and specific", 1)
  const labels = [...new Set(found.map((c) => c.label.toLowerCase()))]
  const generic = labels.filter((l) => /^(?:submit|send|go|ok|click here)$/.test(l))
  const fix = "Keep 1-3 distinct actions and label them with the outcome (\"Get my quote\", not \"Submit\")."
  if (labels.length > 6) {
    return result("fail", `${labels.length} different calls to action compete: ${examples(labels)}.`, fix)
  }
  if (labels.length > 3 || generic.length > 0) {
    return result(
      "warn",
      `${plural(labels.length, "distinct call")} to action${
        generic.length > 0 ? `; generic: ${examples(generic)}` : ""
      }.`,
      fix
    )
  }
  return result("pass", `Calls to action: ${examples(labels)}.`)
}

const formLabels = (page: Page): CheckOutcome => {
  const fields = page.$("form").toArray().flatMap((f) => fieldsOf(page, f))
  if (fields.length === 0) return undefined
  const result = check("cro.form-labels", "cro", "Form fields are labelled", 1)
  const labelled = fields.filter((el) => {
    const id = el.attribs.id
    return (id !== undefined && page.$("label[for]").toArray().some((l) => l.attribs.for === id)) ||
      page.$(el).closest("label").length > 0 ||
      (el.attribs["aria-label"] ?? "").trim() !== "" || el.attribs["aria-labelledby"] !== undefined ||
      (el.attribs.title ?? "").trim() !== ""
  })
  const fix = "Give every field a visible <label> (placeholders vanish as people type) and use type=email / type=tel."
  return labelled.length === fields.length
    ? result("pass", `All ${plural(fields.length, "field")} are labelled.`)
    : result(
      labelled.length === 0 ? "fail" : "warn",
      `${labelled.length} of ${plural(fields.length, "field")} labelled.`,
      fix
    )
}

const https = (page: Page): CheckOutcome => {
  const result = check("cro.https", "cro", "Page is served over HTTPS", 1)
  if (new URL(page.url).protocol !== "https:") {
    return result(
      "fail",
      "The page is served over plain HTTP.",
      "Serve the site over HTTPS and redirect http:// to it; browsers mark HTTP forms as not secure."
    )
  }
  const mixed = page.$(
    "img[src], script[src], iframe[src], link[rel~=stylesheet][href], video[src], audio[src], source[src]"
  ).toArray()
    .map((el) => el.attribs.src ?? el.attribs.href ?? "").filter((src) => src.toLowerCase().startsWith("http:"))
  return mixed.length === 0
    ? result("pass", "HTTPS, with no plain-HTTP subresources.")
    : result(
      "warn",
      `${plural(mixed.length, "subresource")} over plain HTTP: ${examples(mixed)}.`,
      "Load every image, script and stylesheet over https://."
    )
}

export const croChecks: ReadonlyArray<(page: Page) => CheckOutcome> = [
  ctaAboveFold,
  formLength,
  trustSignals,
  contact,
  mobile,
  pageWeight,
  responseTime,
  ctaClarity,
  formLabels,
  https
]
