import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"

/** The one stylesheet of every page: readable from phone width up, no web fonts, no build step. */
export const stylesheet = `
:root{--ink:#1d2433;--muted:#5b6475;--line:#e3e7ef;--bg:#f6f7fb;--card:#fff;--brand:#4f46e5;--brand-ink:#fff;
--ok:#0f7b4f;--ok-bg:#e3f6ee;--warn:#8a5a00;--warn-bg:#fff4d6;--bad:#a4262c;--bad-bg:#fde7e9;--radius:12px}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
a{color:var(--brand)}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;word-break:break-all}
.topbar{display:flex;align-items:center;justify-content:space-between;gap:1rem;padding:.75rem 1.25rem;background:var(--card);border-bottom:1px solid var(--line)}
.brand{display:flex;align-items:center;gap:.5rem;font-weight:700;color:var(--ink);text-decoration:none;font-size:1.1rem}
.logo{display:inline-grid;place-items:center;width:2rem;height:2rem;border-radius:8px;background:var(--brand);color:var(--brand-ink)}
main{max-width:72rem;margin:0 auto;padding:1.25rem}
.foot{text-align:center;color:var(--muted);font-size:.85rem;padding:2rem 1rem}
h1{font-size:1.6rem;line-height:1.25;margin:.25rem 0 .75rem}
h2{font-size:1.15rem;margin:0 0 .75rem}
h3{font-size:1rem;margin:.5rem 0}
.lead{font-size:1.05rem;color:var(--muted)}
.muted{color:var(--muted)}.small{font-size:.85rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:var(--radius);padding:1.25rem;margin-bottom:1.25rem}
.narrow{max-width:32rem;margin:2rem auto}
.grid{display:grid;gap:1.25rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,22rem),1fr))}
.grid .card{margin-bottom:0}
.section-wide{grid-column:1/-1}
.hero{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:1rem}
.badge{display:inline-block;padding:.15rem .6rem;border-radius:999px;font-size:.8rem;font-weight:600;background:var(--line);color:var(--ink);white-space:nowrap}
.badge.ok,.badge.active,.badge.published,.badge.approved,.badge.succeeded{background:var(--ok-bg);color:var(--ok)}
.badge.onboarding,.badge.pending_approval,.badge.draft,.badge.degraded,.badge.running,.badge.pending{background:var(--warn-bg);color:var(--warn)}
.badge.suspended,.badge.cancelled,.badge.rejected,.badge.down,.badge.failed{background:var(--bad-bg);color:var(--bad)}
.price{font-size:2rem;font-weight:700}.price small{font-size:1rem;color:var(--muted);font-weight:400}
ul.plain{list-style:none;padding:0;margin:0}
ul.checks{padding-left:1.2rem}
.list>li{border-top:1px solid var(--line);padding:.75rem 0}
.list>li:first-child{border-top:0;padding-top:0}
.row{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem}
.item-title{font-weight:600;overflow-wrap:anywhere}
.excerpt{color:var(--muted);font-size:.9rem;overflow-wrap:anywhere;margin:.25rem 0}
form{margin:0}
form.stack{display:grid;gap:.75rem}
form.inline{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-top:.5rem}
label{display:grid;gap:.25rem;font-weight:600;font-size:.9rem}
input,select,textarea{font:inherit;font-weight:400;padding:.55rem .7rem;border:1px solid #c9cfdb;border-radius:8px;background:#fff;color:var(--ink);width:100%}
form.inline input,form.inline select{width:auto;flex:1 1 10rem}
button,.button{display:inline-block;font:inherit;font-weight:600;padding:.55rem 1rem;border-radius:8px;border:1px solid var(--brand);background:var(--brand);color:var(--brand-ink);cursor:pointer;text-decoration:none;text-align:center}
button.secondary,.button.secondary{background:#fff;color:var(--brand)}
button.danger{background:#fff;color:var(--bad);border-color:var(--bad)}
button.big{width:100%;padding:.8rem 1rem;font-size:1.05rem}
button:focus-visible,a:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #a5b4fc;outline-offset:2px}
.notice{padding:.75rem 1rem;border-radius:8px;background:var(--warn-bg);color:var(--warn);margin-bottom:1rem}
.notice.error{background:var(--bad-bg);color:var(--bad)}
.notice.ok{background:var(--ok-bg);color:var(--ok)}
.secret{display:block;padding:.75rem;border-radius:8px;background:#0f172a;color:#e2e8f0;margin:.25rem 0 1rem;user-select:all}
table{width:100%;border-collapse:collapse;font-size:.9rem}
th,td{text-align:left;padding:.4rem .5rem;border-top:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600}
.table-scroll{overflow-x:auto}
.kpis{display:flex;flex-wrap:wrap;gap:1.5rem}
.kpi strong{display:block;font-size:1.4rem}
details summary{cursor:pointer;color:var(--brand);font-weight:600}
.chart{width:100%;height:auto}
nav.sections{margin:0 0 1rem;line-height:2}
hr{border:0;border-top:1px solid var(--line);margin:1rem 0}
.skip{position:absolute;left:-999px;top:0;background:var(--card);padding:.5rem 1rem;z-index:10}
.skip:focus{left:.5rem}
.site-nav{display:flex;flex-wrap:wrap;gap:.25rem}
.site-nav a{display:inline-block;padding:.4rem .7rem;border-radius:8px;text-decoration:none;font-weight:600;min-height:44px;line-height:1.75}
.site-nav a:hover,.site-nav a[aria-current=page]{background:var(--bg)}
.topbar-cta{min-height:44px;line-height:1.75;white-space:nowrap}
.foot p{margin:.25rem 0}
.foot-links a{display:inline-block;padding:.5rem .6rem;min-height:44px}
.foot address{font-style:normal;margin:.25rem 0}
.standards{max-width:60rem;margin:3rem auto 1rem;padding:0 1rem;color:var(--muted);font-size:.85rem}
.standards blockquote{margin:0 0 .25rem;font-style:italic}
.standards a{display:inline-block;min-height:24px}
nav.sections a{display:inline-block;padding:.25rem .15rem;min-height:24px}
.hero-home{padding:2.5rem 0 1.5rem;text-align:center}
.hero-home h1{font-size:2.2rem;margin-bottom:.5rem}
.hero-home .lead{max-width:40rem;margin:0 auto 1.5rem}
.signup{display:flex;flex-wrap:wrap;gap:.5rem;justify-content:center;max-width:32rem;margin:0 auto}
.signup label{flex:1 1 14rem;text-align:left}
.signup button{align-self:end;min-height:44px}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;justify-content:center;margin-top:1rem}
.actions a{min-height:44px;line-height:1.75}
.features{display:grid;gap:1.25rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,15rem),1fr));margin:2rem 0}
.features .card{margin:0}
.reference li{margin:.35rem 0;overflow-wrap:anywhere}
.copy-row{display:flex;gap:.5rem;align-items:stretch;margin:.25rem 0 1rem}
.copy-row .secret{flex:1;margin:0;min-width:0}
.copy-row button{flex:none;min-height:44px}
.legend{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;padding:0;margin:.5rem 0;font-size:.85rem}
.legend li::before{content:"";display:inline-block;width:.8rem;height:.8rem;border-radius:3px;margin-right:.35rem;vertical-align:-.1rem;background:var(--swatch)}
.legend .s0{--swatch:#4f46e5}.legend .s1{--swatch:#0f7b4f}.legend .s2{--swatch:#c2410c}.legend .s3{--swatch:#64748b}
.charts{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,18rem),1fr));margin-bottom:1rem}
.charts figure{margin:0;padding:.75rem}
caption{text-align:left;padding:.25rem 0}
.post{white-space:pre-wrap;overflow-wrap:anywhere;font:inherit;margin:0}
.consent-actions{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center}
@media (max-width:40rem){.hero-home h1{font-size:1.7rem}.topbar{padding:.5rem .75rem}.site-nav a{padding:.4rem .45rem}main{padding:.75rem}.card{padding:1rem}h1{font-size:1.35rem}.hide-narrow{display:none}.topbar-cta{display:none}}
`

/**
 * The success page's script: it fetches the session result once and shows
 * the key and MCP endpoint, written into the page with textContent only.
 */
export const signupScript = `
(function(){
  var root=document.getElementById("signup-result");
  if(!root)return;
  var id=root.getAttribute("data-session");
  var status=document.getElementById("signup-status");
  var keyBox=document.getElementById("signup-key");
  function show(text,kind){status.textContent=text;status.className="notice"+(kind?" "+kind:"");}
  var tries=0;
  function load(){
    fetch("/api/session/"+encodeURIComponent(id),{headers:{accept:"application/json"},cache:"no-store"}).then(function(res){
      return res.json().then(function(body){return {status:res.status,body:body};},function(){return {status:res.status,body:{}};});
    }).then(function(r){
      if(r.status===200){
        document.getElementById("signup-api-key").textContent=r.body.apiKey;
        document.getElementById("signup-mcp").textContent=r.body.mcpEndpoint;
        document.getElementById("signup-customer").textContent=r.body.customerId;
        keyBox.hidden=false;
        show("Your trial has started. Copy your API key now: it is shown only this once.","ok");
      }else if(r.status===409&&r.body.code==="E_CHECKOUT_INCOMPLETE"&&tries<20){
        tries++;show("Waiting for the payment provider to confirm your sign-up…");setTimeout(load,1500);
      }else if(r.status===410){
        show("This key was already shown once and is not kept. Sign in to the dashboard with it; if it was lost, support can issue a new owner key.","error");
      }else if(r.status===404){
        show("This checkout session does not exist.","error");
      }else{
        show((r.body&&r.body.error)||"Something went wrong; reload to try again.","error");
      }
    },function(){show("Network error; reload to try again.","error");});
  }
  load();
})();
`

/**
 * Copy buttons: a `button[data-copy]` copies the text of the element whose
 * id it names and says so in its own label for a moment. Buttons start
 * hidden and are shown here, so a page without script shows none.
 */
export const copyScript = `
(function(){
  function wire(button){
    button.hidden=false;
    button.addEventListener("click",function(){
      var source=document.getElementById(button.getAttribute("data-copy"));
      if(!source)return;
      var label=button.textContent;
      function done(text){button.textContent=text;setTimeout(function(){button.textContent=label;},2000);}
      if(navigator.clipboard&&navigator.clipboard.writeText){
        navigator.clipboard.writeText(source.textContent).then(function(){done("Copied");},function(){select(source);done("Press Ctrl+C");});
      }else{select(source);done("Press Ctrl+C");}
    });
  }
  function select(node){var range=document.createRange();range.selectNodeContents(node);var sel=window.getSelection();sel.removeAllRanges();sel.addRange(range);}
  var buttons=document.querySelectorAll("button[data-copy]");
  for(var i=0;i<buttons.length;i++)wire(buttons[i]);
})();
`

/**
 * The home page's sign-up form: it posts the checkout (`POST /api/checkout`,
 * JSON, as any client would) and sends the visitor to the hosted page it
 * answers with; a refusal is shown under the form.
 */
export const homeScript = `
(function(){
  var form=document.getElementById("signup-form");
  if(!form)return;
  var message=document.getElementById("signup-message");
  var button=form.querySelector("button");
  function show(text){message.textContent=text;message.hidden=false;}
  form.addEventListener("submit",function(event){
    event.preventDefault();
    var email=form.elements.email.value.trim();
    button.disabled=true;message.hidden=true;
    fetch("/api/checkout",{method:"POST",headers:{"content-type":"application/json",accept:"application/json"},body:JSON.stringify({email:email})}).then(function(res){
      return res.json().then(function(body){return {status:res.status,body:body};},function(){return {status:res.status,body:{}};});
    }).then(function(r){
      if(r.status===200&&typeof r.body.url==="string"){window.location.assign(r.body.url);return;}
      button.disabled=false;
      show(r.status===429?"Too many sign-ups from this address just now; try again in a minute.":(r.body&&r.body.error)||"The sign-up failed; try again.");
    },function(){button.disabled=false;show("Network error; try again.");});
  });
})();
`

/** Static assets of the pages, cacheable, served with nosniff. */
export const AssetRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const headers = { "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" }
    yield* router.add(
      "GET",
      "/assets/herald.css",
      HttpServerResponse.text(stylesheet, { contentType: "text/css; charset=utf-8", headers })
    )
    const script = (body: string) =>
      HttpServerResponse.text(body, { contentType: "text/javascript; charset=utf-8", headers })
    yield* router.add("GET", "/assets/signup.js", script(signupScript))
    yield* router.add("GET", "/assets/copy.js", script(copyScript))
    yield* router.add("GET", "/assets/home.js", script(homeScript))
  })
)
