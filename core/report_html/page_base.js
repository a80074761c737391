// The report page's script, first part (page_script.py joins the parts, in the order it
// names them, inside one function): the page data, what every section uses, and the summary.
// The script formats no number: every figure, share and difference it shows is text from the
// page data, written in Python by core/figure_text (page_texts.py), the editor's and the
// CLI's renderer; the raw values it holds only size and sort.
var data = JSON.parse(document.getElementById('perfline-data').textContent);
var report = { ready: false, readyAt: null, view: 0, chart: null, table: null, compare: null };
window.perflineReport = report;
var vscode = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : null;

// ---- text ----
/**
 * The text a scale of the page data gives a value the page holds (page_texts.Scale: runs of
 * values written alike, `from` ascending; the run of `value` is the last that starts at or
 * below it).
 * @param {{from: number[], text: string[]}} scale
 * @param {number} value
 * @returns {string}
 */
function textAt(scale, value) {
  var low = 0, high = scale.from.length - 1;
  while (low < high) {
    var middle = (low + high + 1) >> 1;
    if (scale.from[middle] <= value) { low = middle; } else { high = middle - 1; }
  }
  return scale.text[low];
}
function esc(s) {
  return String(s).replace(/[&<>"']/g, function (c) {
    return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
  });
}
/** @returns {any} */
function $(id) { return document.getElementById(id); }

// ---- summary ----
function renderSummary() {
  var s = data.summary, m = s.model, cards = [];
  var model = [['Name', m.name], ['Format', m.format], ['Size', m.size], ['Hash', m.hash]];
  var target = [['Profile', s.target.profile], ['Type', s.target.type],
    ['Description', s.target.description], ['Components', s.target.components.join(', ')]];
  var tool = [['Tool', [s.tool.name, s.tool.version].filter(Boolean).join(' ')],
    ['Run', s.run_id], ['Time', s.timestamp]];
  function kv(title, rows) {
    var body = rows.filter(function (r) { return r[1]; }).map(function (r) {
      return '<tr><th>' + esc(r[0]) + '</th><td class="mono">' + esc(r[1]) + '</td></tr>';
    }).join('');
    return '<div class="card"><h3>' + esc(title) + '</h3><table>' + body + '</table></div>';
  }
  cards.push(kv('Model', model), kv('Target', target), kv('Document', tool));
  if (s.backends.length) {
    cards.push(kv('Backends', s.backends.map(function (b) {
      return [b.id || '?', [b.name, b.version].filter(Boolean).join(' ')];
    })));
  }
  var html = '<div class="grid">' + cards.join('') + '</div>';
  s.results.forEach(function (r) {
    var head = [r.kind, r.status].filter(Boolean).join(' \u00b7 ');
    var facts = [['producer', r.producer], ['mode', r.mode], ['runs', r.runs]]
      .filter(function (f) { return f[1]; });
    html += '<h3 class="result-head">Result ' + (r.position + 1) + ': ' + esc(head) + '</h3>';
    html += '<p class="meta">' + facts.map(function (f) {
      return esc(f[0]) + ' <b>' + esc(f[1]) + '</b>';
    }).join(' \u00b7 ') + '</p>';
    if (r.metrics.length) {
      html += '<table class="metrics"><thead><tr><th>Metric</th><th class="num">Value</th>' +
        '<th>Unit</th><th>Note</th></tr></thead><tbody>' + r.metrics.map(function (x) {
        return '<tr><td class="mono">' + esc(x.name) + '</td><td class="num">' +
          esc(x.number === null ? 'n/a' : x.number) + '</td><td>' + esc(x.unit) +
          '</td><td class="muted">' + esc(x.reason || '') + esc(x.samples || '') + '</td></tr>';
      }).join('') + '</tbody></table>';
    }
    r.warnings.forEach(function (w) { html += '<p class="warn">\u26a0 ' + esc(w) + '</p>'; });
  });
  $('summary').innerHTML = html;
}

// ---- view state shared by the sections ----
var V = null;
function entityName(i) { return i < 0 ? '' : (V.entities.names[i] || V.entities.ids[i]); }
function entityKind(i) { return i < 0 ? '' : V.entities.kinds[V.entities.kind[i]]; }
/** The label of a figure of the view's metric (``9.63 ms avg · 81%``). */
function figureText(value) { return textAt(V.metric.figures, value); }
/** An entity's own figure's label, or null. */
function entityFigure(i) {
  var value = i < 0 ? null : V.entities.value[i];
  return value === null ? null : figureText(value);
}
