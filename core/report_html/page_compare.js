// The report page's script: the compare view (comparison.py's data). A view's deltas by
// entity: rows [entity, base, new, delta, significance, note, p, change(, unit)] (note, p,
// change and unit: positions in the view's strings; base and new: values whose text the
// view's scale of their unit gives); and the compare section: legend, how figures were
// judged, the lines by significance, the result-level metrics, the entities one run has.
var CMP = data.comparison, C = null;
var SIG_TEXT = { regressed: 'regressed', improved: 'improved',
  unchanged: 'unchanged or within noise', inconclusive: 'inconclusive',
  added: 'new in this run', none: 'no figure to compare' };
var SIG_ORDER = ['regressed', 'improved', 'unchanged', 'inconclusive', 'added', 'none'];
function indexComparison(view) {
  if (!CMP || !view.comparison) { return null; }
  var byEntity = {};
  view.comparison.deltas.forEach(function (row) { byEntity[row[0]] = row; });
  return { view: view.comparison, byEntity: byEntity };
}
function deltaOf(e) { return C !== null && e >= 0 ? (C.byEntity[e] || null) : null; }
function stringOf(ref) { return ref >= 0 ? C.view.strings[ref] : ''; }
function noteOf(row) { return stringOf(row[5]); }
function pOf(row) { return row[6] >= 0 ? 'adjusted p = ' + stringOf(row[6]) : ''; }
/** The note and the adjusted p-value, as one phrase. */
function howOf(row) { return [noteOf(row), pOf(row)].filter(Boolean).join(', '); }
// A call line's change its callees account for (comparison.py's note starts 'inclusive'):
// coloured unchanged, but it changed; its words say where it is counted instead.
function isInclusive(row) { return noteOf(row).lastIndexOf('inclusive', 0) === 0; }
function sigWords(row) {
  return isInclusive(row) ? 'inclusive, counted on the lines it calls' : SIG_TEXT[sigOf(row)];
}
function sigOf(row) { return row[1] === null ? 'added' : CMP.significances[row[4]]; }
function rowUnit(row) { return row.length > 8 ? stringOf(row[8]) : C.view.metric.unit; }
/** The text of a row's base (1) or new (2) figure. */
function valueText(row, k) {
  return row[k] === null ? '\u2014' : textAt(C.view.scales[rowUnit(row)], row[k]);
}
// ▲ / ▼: the value went up / down, as in the CLI and the editor (a rate that fell is a
// regression marked ▼); the colour and the word say whether it is worse.
function deltaText(row) {
  if (row[1] === null) { return 'new in this run'; }
  return row[7] >= 0 ? stringOf(row[7]) : '? ' + valueText(row, 1);
}
function deltaTitle(row) {
  var parts = ['baseline ' + valueText(row, 1), 'new ' + valueText(row, 2)];
  if (row[7] >= 0) { parts.push(stringOf(row[7])); }
  var how = howOf(row);
  parts.push(isInclusive(row) ? how : SIG_TEXT[sigOf(row)] + (how ? ': ' + how : ''));
  return parts.join(' \u00b7 ');
}
function legendHtml() {
  return SIG_ORDER.map(function (s) {
    return '<span><i class="s-' + s + '"></i>' + esc(SIG_TEXT[s]) + '</span>';
  }).join('');
}

function placeOf(view) {
  var places = {};
  view.files.forEach(function (f) {
    f.lines.forEach(function (l) { places[l[1]] = { file: f.display, line: l[0] }; });
  });
  return places;
}
function changeRows(rows, strings, head) {
  return '<table><thead><tr><th>Kind</th><th>Name</th><th>Where</th><th class="num">' +
    esc(head) + '</th></tr></thead><tbody>' + rows.map(function (r) {
      var where = r[2] ? r[2].replace(/\\/g, '/').split('/').pop() : '';
      where += r[2] && r[3] ? ':' + r[3] : '';
      return '<tr><td>' + esc(strings[r[0]]) + '</td><td class="mono">' + esc(r[1]) +
        '</td><td class="mono">' + esc(where) + '</td><td class="num">' +
        esc(r[4] !== null ? r[4] : '\u2014') + '</td></tr>';
    }).join('') + '</tbody></table>';
}
function modelTable(cv) {
  return '<h3>Result metrics</h3><table class="metrics"><thead><tr><th>Metric</th>' +
    '<th class="num">Baseline</th><th class="num">This run</th><th class="num">Change</th>' +
    '<th>Verdict</th></tr></thead><tbody>' + cv.model.map(function (m) {
      // [name, unit, base, new, change, significance, note, p]: texts
      var sig = m[2] === null ? 'added' : CMP.significances[m[5]];
      var note = [m[6], m[7] !== null ? 'adjusted p = ' + m[7] : null].filter(Boolean);
      return '<tr><td class="mono">' + esc(m[0]) + '</td><td class="num">' +
        esc(m[2] !== null ? m[2] : '\u2014') + '</td><td class="num">' +
        esc(m[3] !== null ? m[3] : '\u2014') + '</td><td class="num sig-' + sig + '">' +
        esc(m[4] !== null ? m[4] : '\u2014') + '</td><td>' + esc(SIG_TEXT[sig]) +
        ' <span class="muted">' + esc(note.join(', ')) + '</span></td></tr>';
    }).join('') + '</tbody></table>';
}
function applyComparison(comparison) {
  var box = $('compare'), body = $('compare-body');
  if (comparison === null || comparison === undefined) { box.hidden = true; return; }
  box.hidden = false;
  var html = '<p class="meta">Baseline <b class="mono">' + esc(comparison.baseline) +
    '</b> \u00b7 this run <b class="mono">' + esc(comparison.current) + '</b></p>' +
    '<p class="meta">Figures with per-run values: Mann\u2013Whitney U on the runs, ' +
    esc(comparison.correction) + ' correction across each kind of figure, level ' +
    esc(comparison.level) + '; figures without them compared exactly (threshold ' +
    esc(comparison.threshold) + '). Only significant changes ' +
    'are coloured as regressed or improved.</p><div class="legend sig-legend">' +
    legendHtml() + '</div>';
  comparison.warnings.forEach(function (w) {
    html += '<p class="warn">\u26a0 ' + esc(w) + '</p>';
  });
  if (C === null) {
    body.innerHTML = html + '<p class="muted">This result has no counterpart in the baseline ' +
      '(another kind, producer or mode): nothing to compare.</p>';
    return;
  }
  var cv = C.view, tally = cv.lines, places = placeOf(V);
  html += '<h3>Lines by ' + esc(cv.metric.name) + (cv.metric.unit ? ' (' + esc(cv.metric.unit) +
    ')' : '') + '</h3><p id="compare-tally">' + ['regressed', 'improved', 'unchanged',
    'inconclusive'].map(function (s) {
      var cls = tally[s] > 0 ? 'chg sig-' + s : 'chg muted';
      return '<span class="' + cls + '">' + tally[s] + ' ' + esc(SIG_TEXT[s]) + '</span>';
    }).join(' \u00b7 ') + '</p>';
  var changed = cv.deltas.filter(function (row) {
    var s = sigOf(row);
    return places[row[0]] && (s === 'regressed' || s === 'improved');
  }).sort(function (a, b) { return Math.abs(b[3]) - Math.abs(a[3]); });
  if (changed.length) {
    html += '<ul id="compare-lines">' + changed.map(function (row) {
      var at = places[row[0]];
      return '<li><a data-file="' + esc(at.file) + '" data-line="' + at.line + '">' +
        esc(at.file + ':' + at.line) + '</a> <span class="chg sig-' + sigOf(row) + '" title="' +
        esc(deltaTitle(row)) + '">' + esc(deltaText(row)) + '</span> <span class="muted">' +
        esc(valueText(row, 1) + ' \u2192 ' + valueText(row, 2)) + '</span></li>';
    }).join('') + '</ul>';
  }
  if (cv.model.length) { html += modelTable(cv); }
  html += '<h3>Only in one run</h3><p id="compare-counts">' + cv.added_count +
    ' entit' + (cv.added_count === 1 ? 'y' : 'ies') + ' with figures only in this run, ' +
    cv.removed_count + ' only in the baseline.</p>';
  var kinds = Object.keys(cv.counts).filter(function (k) {
    return cv.counts[k].added || cv.counts[k].removed;
  });
  if (kinds.length) {
    html += '<p class="muted">All entities, with figures or not: ' + kinds.map(function (k) {
      var c = cv.counts[k];
      return esc(k) + ' ' + c.common + ' in both, ' + c.added + ' new, ' + c.removed + ' gone';
    }).join('; ') + '.</p>';
  }
  [['added', 'This run only', 'figure'], ['removed', 'Baseline only', 'baseline figure']]
    .forEach(function (part) {
      var rows = cv[part[0]], count = cv[part[0] + '_count'];
      if (!rows.length) { return; }
      html += '<details id="compare-' + part[0] + '"><summary>' + esc(part[1]) + ' (' + count +
        ')</summary>' + changeRows(rows, cv.strings, part[2]) + (count > rows.length ?
        '<p class="muted">and ' + (count - rows.length) + ' more</p>' : '') + '</details>';
    });
  body.innerHTML = html;
  body.onclick = function (/** @type {any} */ ev) {
    var a = ev.target.closest('a[data-line]');
    if (a) { showLine(a.getAttribute('data-file'), Number(a.getAttribute('data-line'))); }
  };
}
