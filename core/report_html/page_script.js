// The report page's script, last part: a view rendered (the chart, the sources, the operator
// table, the compare section), the view picker, and the start.
function renderView(k) {
  V = data.views[k];
  report.view = k;
  var metric = V.metric;
  $('metric').innerHTML = metric ? 'sized by <b>' + esc(metric.name) + '</b>' +
    (metric.unit ? ' (' + esc(metric.unit) + ')' : '') +
    (metric.total_text ? ' \u00b7 model total <b>' + esc(metric.total_text) + '</b>' : '') : '';
  rowOfEntity = {};
  V.table.rows.forEach(function (row, r) { rowOfEntity[row[0]] = r; });
  C = indexComparison(V);
  report.compare = C === null ? null : { lines: C.view.lines, deltas: C.view.deltas.length };
  report.chart = Chart(V);
  renderFiles(V);
  report.table = Table(V);
  applyComparison(data.comparison);
}

renderSummary();
if (data.views.length) {
  var pick = $('view-pick');
  if (data.views.length > 1) {
    pick.innerHTML = data.views.map(function (v, k) {
      return '<option value="' + k + '">Result ' + (v.result + 1) + ': ' +
        esc([v.kind, v.producer].filter(Boolean).join(' \u00b7 ')) + '</option>';
    }).join('');
    pick.hidden = false;
    pick.onchange = function () { renderView(Number(pick.value)); };
  }
  renderView(0);
} else {
  document.querySelectorAll('.needs-view').forEach(function (/** @type {any} */ x) {
    x.hidden = true;
  });
  $('no-view').hidden = false;
}
report.ready = true;
report.readyAt = performance.now();
document.documentElement.setAttribute('data-ready', '1');
