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
nav{margin:0 0 1rem;line-height:2}
hr{border:0;border-top:1px solid var(--line);margin:1rem 0}
@media (max-width:40rem){main{padding:.75rem}.card{padding:1rem}h1{font-size:1.35rem}.hide-narrow{display:none}}
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

/** Static assets of the pages, cacheable, served with nosniff. */
export const AssetRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const headers = { "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" }
    yield* router.add("GET", "/assets/herald.css", HttpServerResponse.text(stylesheet, { contentType: "text/css; charset=utf-8", headers }))
    yield* router.add("GET", "/assets/signup.js", HttpServerResponse.text(signupScript, { contentType: "text/javascript; charset=utf-8", headers }))
  })
)


