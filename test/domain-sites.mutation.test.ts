import { assert, describe, it } from "@effect/vitest"
import { lighthouseLlmsRule, parseLlmsTxt, renderLlmsTxt } from "../src/domain/LlmsTxt.ts"
import { isAllowed, parseRobots, patternMatches, userAgentToken, validateRobots } from "../src/domain/Robots.ts"

describe("robots.txt validation messages (Lighthouse's robots-txt audit)", () => {
  it("names each broken line with Lighthouse's wording", () => {
    const content = [
      "Disallow: /early",
      "no colon",
      "User-agent:",
      "User-agent: *",
      "Frobnicate: yes",
      "Sitemap: not a url",
      "Sitemap: mailto:x@y.example",
      "Allow: relative",
      "Disallow: /a$b",
      "Allow: *.png$",
      "Disallow:",
      "# just a comment",
      "Crawl-delay: 5  # trailing comment",
      "   ",
      "Content-Signal: search=yes"
    ].join("\r\n")
    assert.deepStrictEqual(validateRobots(content), [
      { line: 1, text: "Disallow: /early", message: "No user-agent specified" },
      { line: 2, text: "no colon", message: "Syntax not understood" },
      { line: 3, text: "User-agent:", message: "No user-agent specified" },
      { line: 5, text: "Frobnicate: yes", message: "Unknown directive" },
      { line: 6, text: "Sitemap: not a url", message: "Invalid sitemap URL" },
      { line: 7, text: "Sitemap: mailto:x@y.example", message: "Invalid sitemap URL protocol" },
      { line: 8, text: "Allow: relative", message: "Pattern should either be empty, start with \"/\" or \"*\"" },
      { line: 9, text: "Disallow: /a$b", message: "\"$\" should only be used at the end of the pattern" }
    ])
    assert.deepStrictEqual(
      validateRobots(
        "user-agent: a\nHOST: example.com\nclean-param: x\nrequest-rate: 1/5\nvisit-time: 0600-0845\nnoindex: /x\nSitemap: http://a.example/s.xml"
      ),
      []
    )
    assert.deepStrictEqual(validateRobots("Allow: /x # comment: with colon"), [{
      line: 1,
      text: "Allow: /x # comment: with colon",
      message: "No user-agent specified"
    }])
  })
})

describe("robots.txt matching", () => {
  it("user-agent tokens are lower case, up to a `/` version", () => {
    assert.strictEqual(userAgentToken("Googlebot/2.1 (+http://www.google.com/bot.html)"), "googlebot")
    assert.strictEqual(userAgentToken("  Bingbot  "), "bingbot")
    assert.strictEqual(userAgentToken("GPTBot /1.0"), "gptbot")
  })

  it("patterns: prefixes, `*` anywhere, `$` at the end only", () => {
    const cases: ReadonlyArray<readonly [string, string, boolean]> = [
      ["/a", "/abc", true],
      ["/abc", "/a", false],
      ["/a*c", "/abbbc/d", true],
      ["/a*c$", "/abbbc/d", false],
      ["/a*c$", "/abbbc", true],
      ["/a$", "/a", true],
      ["/a$", "/ab", false],
      ["*", "/anything", true],
      ["/*.png$", "/x/y.png", true],
      ["/*.png$", "/x/y.png?z", false],
      ["/a$b", "/a$b", true],
      ["/a$b", "/ab", false],
      ["", "/", true],
      ["/x*y*z", "/xyz", true],
      ["/x*y*z", "/xzy", false],
      ["**/b", "/a/b", true]
    ]
    for (const [pattern, path, expected] of cases) {
      assert.strictEqual(patternMatches(pattern, path), expected, `${pattern} ~ ${path}`)
    }
  })

  it("groups, the longest rule, allow winning a tie, the generic group as fallback, sitemaps", () => {
    const robots = parseRobots(
      "https://a.example/robots.txt",
      [
        "# comment line",
        "User-agent: BotOne",
        "User-agent: bottwo/3.0",
        "Disallow: /private",
        "Allow: /private/open",
        "",
        "User-agent: *",
        "Disallow: /shop",
        "Allow: /shop",
        "Disallow: /admin # staff only",
        "Sitemap: https://a.example/sitemap.xml",
        "Sitemap:",
        "User-agent: Lazy",
        "Crawl-delay: 10",
        "Unknown: x",
        ": no name",
        "Disallow: /%7euser/"
      ].join("\n")
    )
    assert.deepStrictEqual(robots.sitemaps, ["https://a.example/sitemap.xml"])
    assert.deepStrictEqual([...robots.groups.keys()].sort(), ["*", "botone", "bottwo", "lazy"])
    assert.deepStrictEqual(robots.groups.get("botone")?.map((r) => [r.pattern, r.allow, r.line]), [[
      "/private",
      false,
      4
    ], ["/private/open", true, 5]])
    assert.isFalse(isAllowed(robots, "https://a.example/private/x", "BotOne/1.0"))
    assert.isTrue(isAllowed(robots, "https://a.example/private/open/x", "bottwo"))
    assert.isTrue(isAllowed(robots, "https://a.example/admin", "bottwo"))
    assert.isTrue(isAllowed(robots, "https://a.example/shop/1"))
    assert.isFalse(isAllowed(robots, "https://a.example/admin/x"))
    assert.isFalse(isAllowed(robots, "https://a.example/%7Euser/a", "Lazy"))
    assert.isTrue(isAllowed(robots, "https://a.example/admin", "Lazy"), "the Lazy group has its own rules only")
    assert.isTrue(isAllowed(robots, "https://a.example/private", "other"))
    assert.isFalse(isAllowed(robots, "https://a.example/admin", "other"))
    assert.isFalse(isAllowed(robots, "https://b.example/"))
    assert.isFalse(isAllowed(robots, "http://a.example/"))
  })

  it("an empty file, or a group with an empty Disallow, allows everything", () => {
    assert.isTrue(isAllowed(parseRobots("http://a.example/robots.txt", ""), "http://a.example/x"))
    assert.isTrue(
      isAllowed(parseRobots("http://a.example/robots.txt", "User-agent: *\nDisallow:"), "http://a.example/x")
    )
    assert.isTrue(
      isAllowed(parseRobots("http://a.example:80/robots.txt", "User-agent: *\nAllow: /"), "http://a.example/x")
    )
    assert.isFalse(
      isAllowed(parseRobots("http://a.example/robots.txt", "User-agent: *\nDisallow: /"), "http://a.example:8080/x")
    )
  })
})

describe("llms.txt", () => {
  it("parses the title, summary, details and sections", () => {
    const file =
      "\uFEFF\n\n#  Acme  \n\n> Analytics\n> for teams.\n\nSome details.\n\n## Docs\n\n- [Start](https://acme.test/start): how to begin \n- [API](https://acme.test/api)\n\n## Optional\n-[Blog](https://acme.test/blog):"
    assert.deepStrictEqual(parseLlmsTxt(file), {
      ok: true,
      file: {
        title: "Acme",
        summary: "Analytics for teams.",
        details: "Some details.",
        sections: [
          {
            name: "Docs",
            links: [{ name: "Start", url: "https://acme.test/start", notes: "how to begin" }, {
              name: "API",
              url: "https://acme.test/api",
              notes: undefined
            }]
          },
          { name: "Optional", links: [{ name: "Blog", url: "https://acme.test/blog", notes: undefined }] }
        ]
      }
    })
    assert.deepStrictEqual(parseLlmsTxt("# A"), {
      ok: true,
      file: { title: "A", summary: undefined, details: "", sections: [] }
    })
    assert.deepStrictEqual(parseLlmsTxt("# A\r\nDetails\r\n"), {
      ok: true,
      file: { title: "A", summary: undefined, details: "Details", sections: [] }
    })
  })

  it("names each line that breaks the rules", () => {
    assert.deepStrictEqual(parseLlmsTxt(""), { ok: false, errors: ["the file must start with a `# Name` heading"] })
    assert.deepStrictEqual(parseLlmsTxt("## Not a title"), {
      ok: false,
      errors: ["the file must start with a `# Name` heading"]
    })
    assert.deepStrictEqual(parseLlmsTxt("#NoSpace"), {
      ok: false,
      errors: ["the file must start with a `# Name` heading"]
    })
    assert.deepStrictEqual(parseLlmsTxt("# A\n## S\n- [a](b c)\nplain\n- [x](https://x.example)"), {
      ok: false,
      errors: [
        "line 3: a section holds only `- [name](url): notes` items",
        "line 4: a section holds only `- [name](url): notes` items"
      ]
    })
  })

  it("writes a file that parses back, leaving out empty parts and escaping brackets", () => {
    const text = renderLlmsTxt({
      title: "## Acme [beta]",
      summary: "  Analytics \n for teams ",
      sections: [
        {
          name: "Docs",
          links: [{ name: "Start [here]", url: "https://acme.test/a b(c)", notes: " first\nsteps " }, {
            name: " ",
            url: "https://acme.test/x"
          }]
        },
        { name: "Empty", links: [] },
        { name: " ", links: [{ name: "n", url: "https://acme.test/n" }] },
        { name: "Blank links", links: [{ name: "", url: "" }] }
      ]
    })
    assert.strictEqual(
      text,
      "# Acme beta\n\n> Analytics for teams\n\n## Docs\n\n- [Start here](https://acme.test/a%20b%28c%29): first steps\n- [https://acme.test/x](https://acme.test/x)\n"
    )
    assert.strictEqual(renderLlmsTxt({ title: " ", sections: [] }), "# Website\n")
    assert.strictEqual(renderLlmsTxt({ title: "A", summary: " ", sections: [] }), "# A\n")
  })

  it("Lighthouse's rule: a heading, a link, at least 50 characters", () => {
    const ok = "# Acme\n\n- [Start](https://acme.test/start): how to begin here"
    assert.isTrue(lighthouseLlmsRule(ok))
    assert.isFalse(lighthouseLlmsRule(ok.replace("# Acme", "Acme")))
    assert.isFalse(lighthouseLlmsRule(ok.replace("[Start](https://acme.test/start)", "Start https://acme.test/start")))
    assert.isFalse(lighthouseLlmsRule("# A\n[b](c)"))
    const exactly50 = "# A\n[b](c)" + "x".repeat(40)
    assert.strictEqual(exactly50.length, 50)
    assert.isTrue(lighthouseLlmsRule(exactly50))
    assert.isFalse(lighthouseLlmsRule(exactly50.slice(0, 49)))
  })
})
