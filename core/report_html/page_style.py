"""The report page's style sheet (inlined into the page; no external resources).

Light and dark schemes follow the viewer's preference (and VS Code's theme variables when the page
runs in a webview). Heat is expressed by classes ``h0`` .. ``h20`` (5% steps of a line's share of
the model total) so the page needs no ``style`` attributes, which a nonce-only Content Security
Policy (a VS Code webview) would block. The compare view's colours are custom properties
(``--sig-regressed``...): the line and table classes ``sig-<significance>`` and the chart (which
reads them from the page) share them.
"""

from __future__ import annotations

from typing import Final

HEAT_STEPS: Final = 20


def _heat_rules() -> str:
    rules = []
    for step in range(1, HEAT_STEPS + 1):
        percent = 100 * step // HEAT_STEPS
        alpha = 0.06 + 0.34 * step / HEAT_STEPS
        rules.append(
            f".ln.h{step}{{background:rgba(var(--heat-rgb),{alpha:.3f})}}"
            f".ln.h{step} .fig{{background:linear-gradient(90deg,"
            f"rgba(var(--heat-rgb),.55) {percent}%,transparent {percent}%)}}"
        )
    return "\n".join(rules)


STYLE: Final = (
    """
:root{--fg:#1d1f23;--muted:#5f6670;--bg:#fff;--panel:#f5f6f8;--line:#e3e5e9;--accent:#0b62c4;
--heat-rgb:255,112,40;--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
--sans:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
--sig-regressed:#d7301f;--sig-improved:#1a9850;--sig-unchanged:#aab2bd;--sig-inconclusive:#d8c27c;
--sig-added:#6baed6;--sig-none:#e1e4e8;--sig-regressed-bg:rgba(215,48,31,.2);
--sig-improved-bg:rgba(26,152,80,.2);--sig-regressed-fg:#9b1c0c;--sig-improved-fg:#0d6a35}
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--muted:#9aa3ad;--bg:#15171a;
--panel:#1f2227;--line:#30343a;--accent:#5aa9ff;--heat-rgb:255,128,64;--sig-none:#3a3f46;
--sig-unchanged:#6c7480;--sig-regressed-fg:#ff9a8a;--sig-improved-fg:#7fdca5}}
body.vscode-dark,body.vscode-high-contrast{--fg:#e6e8eb;--muted:#9aa3ad;--bg:#15171a;
--panel:#1f2227;--line:#30343a;--accent:#5aa9ff;--sig-none:#3a3f46;--sig-unchanged:#6c7480;
--sig-regressed-fg:#ff9a8a;--sig-improved-fg:#7fdca5}
*{box-sizing:border-box}
body{margin:0;padding:0 24px 48px;font:14px/1.45 var(--sans);color:var(--fg);background:var(--bg)}
header{padding:18px 0 8px;border-bottom:1px solid var(--line)}
h1{font-size:20px;margin:0 0 4px}
h2{font-size:16px;margin:28px 0 8px}
.meta{color:var(--muted)}
.meta b{color:var(--fg);font-weight:600}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:12px}
.card{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:10px 12px}
.card table{table-layout:fixed}
.card th{width:38%;white-space:normal;overflow-wrap:anywhere}
.card td{overflow-wrap:anywhere}
.card h3{font-size:13px;margin:0 0 6px;color:var(--muted);text-transform:uppercase;
letter-spacing:.04em}
table{border-collapse:collapse;width:100%}
td,th{padding:3px 8px;text-align:left;vertical-align:top;border-bottom:1px solid var(--line)}
th{font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.muted{color:var(--muted)}
.warn{color:#b26a00}
code,.mono{font-family:var(--mono);font-size:12.5px}
select,input,button{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);
border-radius:4px;padding:3px 8px}
button{cursor:pointer}
button:hover{border-color:var(--accent)}
#chart-box{position:relative;border:1px solid var(--line);border-radius:6px;overflow:hidden}
#chart{display:block;width:100%;cursor:pointer}
#crumbs{margin:4px 0 8px;font-size:13px}
#crumbs a{color:var(--accent);cursor:pointer;text-decoration:none}
#crumbs a:hover{text-decoration:underline}
#tip{position:absolute;pointer-events:none;background:var(--panel);border:1px solid var(--line);
border-radius:6px;padding:6px 9px;font-size:12.5px;max-width:460px;box-shadow:0 2px 8px
rgba(0,0,0,.18);display:none;z-index:5}
#tip .k{color:var(--muted)}
details.file{border:1px solid var(--line);border-radius:6px;margin:10px 0;overflow:hidden}
details.file>summary{cursor:pointer;background:var(--panel);padding:6px 10px;font-weight:600}
details.file>summary .muted{font-weight:400}
.code{font-family:var(--mono);font-size:12.5px;line-height:1.5}
.ln{display:flex;white-space:pre}
.ln .no{flex:0 0 56px;text-align:right;padding-right:10px;color:var(--muted);user-select:none}
.ln .fig{flex:0 0 190px;text-align:right;padding-right:10px;white-space:nowrap;overflow:hidden}
.ln .src{flex:0 1 auto;overflow:hidden;text-overflow:ellipsis}
.ln .calls{flex:0 0 auto;margin-left:2ch;color:var(--muted);font-family:var(--sans);font-size:12px}
.ln.has{cursor:pointer}
.ln.has .no::before{content:"\\25B8 ";}
.ln.open .no::before{content:"\\25BE ";}
.ln.target{outline:2px solid var(--accent);outline-offset:-2px}
.ln .no a{color:inherit;text-decoration:none}
.ops{background:var(--panel);border-top:1px solid var(--line);border-bottom:1px solid var(--line);
padding:4px 10px 6px 66px;font-family:var(--sans);font-size:12.5px;white-space:normal}
.ops table{width:auto;min-width:50%}
.gap{color:var(--muted);padding-left:66px;font-style:italic}
#op-table th.sortable{cursor:pointer;user-select:none}
#op-table th.sortable:hover{color:var(--accent)}
#op-table th[aria-sort=ascending]::after{content:" \\25B2"}
#op-table th[aria-sort=descending]::after{content:" \\25BC"}
#op-table td.name{font-family:var(--mono);font-size:12.5px;max-width:360px;overflow:hidden;
text-overflow:ellipsis;white-space:nowrap}
#op-table a{color:var(--accent);cursor:pointer}
.scroll{overflow-x:auto}
.toolbar{display:flex;gap:8px;align-items:center;margin:6px 0}
.legend span{display:inline-block;margin-right:10px;font-size:12px}
.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;
vertical-align:-1px}
.k-model{background:#8d99ae}.k-module{background:#5b8def}.k-function{background:#3bb3a0}
.k-line{background:#f2b134}.k-operator{background:#f0733a}.k-unit{background:#a77bca}
.k-more{background:#b8bec7}
.s-regressed{background:var(--sig-regressed)}.s-improved{background:var(--sig-improved)}
.s-unchanged{background:var(--sig-unchanged)}.s-inconclusive{background:var(--sig-inconclusive)}
.s-added{background:var(--sig-added)}.s-none{background:var(--sig-none)}
.ln .delta{flex:0 0 170px;text-align:right;padding-right:10px;white-space:nowrap;overflow:hidden}
.ln.sig-regressed{box-shadow:inset 4px 0 0 var(--sig-regressed)}
.ln.sig-improved{box-shadow:inset 4px 0 0 var(--sig-improved)}
.sig-regressed>.delta,td.sig-regressed,.chg.sig-regressed{background:var(--sig-regressed-bg);
color:var(--sig-regressed-fg);font-weight:600}
.sig-improved>.delta,td.sig-improved,.chg.sig-improved{background:var(--sig-improved-bg);
color:var(--sig-improved-fg);font-weight:600}
.sig-unchanged>.delta,td.sig-unchanged,.chg.sig-unchanged{color:var(--muted)}
.sig-inconclusive>.delta,td.sig-inconclusive,.chg.sig-inconclusive{color:var(--muted);
font-style:italic}
.sig-added>.delta,td.sig-added,.chg.sig-added{color:var(--accent)}
.chg{padding:0 4px;border-radius:3px;white-space:nowrap}
#compare ul{margin:4px 0 8px;padding-left:20px}
#compare a{color:var(--accent);cursor:pointer}
#compare details{margin:6px 0}
#compare details>summary{cursor:pointer}
footer{margin-top:36px;color:var(--muted);font-size:12px}
"""
    + _heat_rules()
    + "\n"
)
