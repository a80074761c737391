// The report page's script: the annotated sources (annotated.py: a file's lines are built when
// its panel opens; a line with figures expands to its operators; a call line says "(calls
// 24-27)" after its text: its figure includes theirs) and the operator table (operator_table.py:
// sortable by any column, filtered, 200 rows at a time; its cells' texts from each column's
// scale).
var rowOfEntity = null;
function heatClass(share) {
  if (!(share > 0)) { return ''; }
  return ' h' + Math.min(20, Math.max(1, Math.round(share * 20)));
}
function lineHtml(no, text, k, f) {
  var fig = k === undefined ? null : f.lines[k];
  var cls = 'ln' + (fig ? ' has' + heatClass(fig[4]) : ''), delta = '';
  if (C !== null) {
    var row = fig ? deltaOf(fig[1]) : null;
    if (row) {
      cls += ' sig-' + sigOf(row);
      delta = '<span class="delta" title="' + esc(deltaTitle(row)) + '">' +
        esc(deltaText(row)) + '</span>';
    } else {
      delta = '<span class="delta"></span>';
    }
  }
  return '<div class="' + cls + '" data-line="' + no + '"' + (fig ? ' data-k="' + k + '"' : '') +
    '><span class="no"><a>' + no + '</a></span><span class="fig">' +
    (fig && fig[3] >= 0 ? esc(V.labels[fig[3]]) : '') + '</span>' + delta + '<span class="src">' +
    (text === null ? '' : esc(text)) + '</span>' +
    (fig && fig[7] ? '<span class="calls" title="' + esc('Inclusive: this line calls ' +
      fig[7] + '; its figure includes theirs') + '">(calls ' + esc(fig[7]) + ')</span>' : '') +
    '</div>';
}
function baseTd(e) {
  var row = deltaOf(e);
  return '<td class="num">' + esc(row ? valueText(row, 1) : '\u2014') + '</td>';
}
function deltaTd(e) {
  var row = deltaOf(e);
  if (!row) { return '<td class="num sig-none"></td>'; }
  return '<td class="num sig-' + sigOf(row) + '" title="' + esc(deltaTitle(row)) + '">' +
    esc(deltaText(row)) + '</td>';
}
function renderFileBody(details, f) {
  var code = details.querySelector('.code'), byLine = {}, html = [], k;
  for (k = 0; k < f.lines.length; k++) { byLine[f.lines[k][0]] = k; }
  if (f.text) {
    for (var no = 1; no <= f.text.length; no++) {
      html.push(lineHtml(no, f.text[no - 1], byLine[no], f));
    }
    for (k = 0; k < f.lines.length; k++) {
      if (f.lines[k][0] > f.text.length) { html.push(lineHtml(f.lines[k][0], null, k, f)); }
    }
  } else {
    var last = 0;
    for (k = 0; k < f.lines.length; k++) {
      if (f.lines[k][0] > last + 1) { html.push('<div class="gap">\u2026</div>'); }
      html.push(lineHtml(f.lines[k][0], null, k, f));
      last = f.lines[k][0];
    }
  }
  code.innerHTML = html.join('');
  details.setAttribute('data-rendered', '1');
}
function opsHtml(fig) {
  var rows = V.table.rows, cols = V.table.columns, head = '<tr><th>Operator</th><th>Type</th>' +
    '<th class="num">' + esc(cols.length ? cols[0].name : 'figure') + '</th>' +
    (C !== null ? '<th class="num">baseline</th><th class="num">change</th>' : '') +
    '<th>Measured in</th></tr>';
  var body = fig[5].map(function (e) {
    var row = rowOfEntity[e], type = '', units = '';
    if (row !== undefined) {
      type = rows[row][1] >= 0 ? V.table.strings[rows[row][1]] : '';
      units = rows[row][4].map(entityName).join(', ');
    }
    return '<tr><td class="mono">' + esc(entityName(e)) + '</td><td>' + esc(type) +
      '</td><td class="num">' + esc(entityFigure(e) || '\u2014') + '</td>' +
      (C !== null ? baseTd(e) + deltaTd(e) : '') + '<td class="mono">' +
      esc(units) + '</td></tr>';
  }).join('');
  var more = fig[6] > fig[5].length ? '<p class="muted">and ' + (fig[6] - fig[5].length) +
    ' more</p>' : '';
  if (!fig[5].length) { return '<p class="muted">no operators below this line</p>'; }
  return '<table>' + head + body + '</table>' + more;
}
function toggleLine(ln, f) {
  var next = ln.nextElementSibling;
  if (next && next.classList.contains('ops')) {
    next.remove();
    ln.classList.remove('open');
    return;
  }
  var box = document.createElement('div');
  box.className = 'ops';
  box.innerHTML = opsHtml(f.lines[Number(ln.getAttribute('data-k'))]);
  ln.after(box);
  ln.classList.add('open');
}
function openInHost(f, no) {
  var file = f.location || f.recorded[0] || f.display;
  if (vscode) {
    vscode.postMessage({ type: 'openLine', file: file, line: no });
    return true;
  }
  document.dispatchEvent(new CustomEvent('perfline-open-line',
    { detail: { file: file, line: no, display: f.display } }));
  return false;
}
function renderFiles(view) {
  var box = $('files');
  box.innerHTML = '';
  if (!view.files.length) {
    box.innerHTML = '<p class="muted">This result has no code lines.</p>';
    return;
  }
  view.files.forEach(function (f, index) {
    var details = document.createElement('details');
    details.className = 'file';
    details.setAttribute('data-file', f.display);
    var figured = f.lines.filter(function (l) { return l[2] !== null; }).length;
    var recorded = f.recorded.filter(function (r) { return r !== f.display; });
    details.innerHTML = '<summary>' + esc(f.display) + ' <span class="muted">' + figured +
      ' line' + (figured === 1 ? '' : 's') + ' with figures' +
      (recorded.length ? ' \u00b7 recorded as ' + esc(recorded.join(', ')) : '') +
      (f.missing ? ' \u00b7 ' + esc(f.missing) : '') +
      '</span></summary><div class="code"></div>';
    details.addEventListener('toggle', function () {
      if (details.open && !details.getAttribute('data-rendered')) { renderFileBody(details, f); }
    });
    details.querySelector('.code').addEventListener('click', function (/** @type {any} */ ev) {
      var ln = ev.target.closest('.ln');
      if (!ln) { return; }
      if (ev.target.closest('.no a') && openInHost(f, Number(ln.getAttribute('data-line')))) {
        return;
      }
      if (ln.classList.contains('has')) { toggleLine(ln, f); }
    });
    box.appendChild(details);
    if (index === 0) { details.open = true; renderFileBody(details, f); }
  });
}
function showLine(display, no) {
  /** @type {HTMLDetailsElement | null} */
  var details = document.querySelector('details.file[data-file="' + CSS.escape(display) + '"]');
  if (!details) { return; }
  var f = V.files.filter(function (x) { return x.display === display; })[0];
  details.open = true;
  if (!details.getAttribute('data-rendered')) { renderFileBody(details, f); }
  var ln = details.querySelector('.ln[data-line="' + no + '"]');
  if (!ln) { return; }
  document.querySelectorAll('.ln.target').forEach(function (x) { x.classList.remove('target'); });
  ln.classList.add('target');
  if (ln.classList.contains('has') && !ln.classList.contains('open')) { toggleLine(ln, f); }
  ln.scrollIntoView({ block: 'center' });
}

// ---- operator table ----
var PAGE = 200;
function Table(view) {
  var t = view.table, fixed = ['Operator', 'Type', 'Module', 'Line'], nf = 5, DCOL = -1;
  var state = { column: t.columns.length ? nf : 0, dir: -1, shown: PAGE, filter: '' };
  var order = null;
  function cellValue(row, c) {
    if (c === 0) { return entityName(row[0]); }
    if (c === 1) { return row[1] >= 0 ? t.strings[row[1]] : null; }
    if (c === 2) { return row[2] >= 0 ? entityName(row[2]) : null; }
    if (c === 3) { return row[3] >= 0 ? t.strings[row[3]] : null; }
    if (c === DCOL) { var d = deltaOf(row[0]); return d ? d[3] : null; }
    return row[c];
  }
  function header() {
    var cells = fixed.map(function (name, c) {
      return '<th class="sortable" data-col="' + c + '">' + esc(name) + '</th>';
    });
    t.columns.forEach(function (col, k) {
      cells.push('<th class="sortable num" data-col="' + (nf + k) + '">' + esc(col.name) +
        (col.unit ? ' <span class="muted">' + esc(col.unit) + '</span>' : '') + '</th>');
      if (k === 0 && view.metric) { cells.push('<th class="num">share</th>'); }
      if (k === 0 && C !== null) {
        cells.push('<th class="num">baseline</th>', '<th class="sortable num" data-col="' +
          DCOL + '">change</th>');
      }
    });
    $('op-head').innerHTML = '<tr>' + cells.join('') + '</tr>';
  }
  function sorted() {
    var rows = t.rows, f = state.filter.toLowerCase(), c = state.column, dir = state.dir;
    var idx = [];
    for (var k = 0; k < rows.length; k++) {
      if (!f) { idx.push(k); continue; }
      var hay = [0, 1, 2, 3].map(function (x) { return cellValue(rows[k], x) || ''; }).join(' ');
      if (hay.toLowerCase().indexOf(f) >= 0) { idx.push(k); }
    }
    var numeric = c >= nf || c === DCOL;
    idx.sort(function (a, b) {
      var x = cellValue(rows[a], c), y = cellValue(rows[b], c);
      if (x === null || y === null) {
        return x === y ? a - b : (x === null ? 1 : -1);
      }
      var d = numeric ? x - y : String(x).localeCompare(String(y), 'en', { numeric: true });
      return d !== 0 ? d * dir : a - b;
    });
    return idx;
  }
  function body() {
    var rows = t.rows, html = [], shown = Math.min(state.shown, order.length);
    for (var k = 0; k < shown; k++) {
      var row = rows[order[k]], e = row[0], cells = [];
      cells.push('<td class="name" title="' + esc(V.entities.ids[e]) + '">' +
        esc(entityName(e)) + '</td>');
      cells.push('<td>' + esc(cellValue(row, 1) || '') + '</td>');
      cells.push('<td class="mono">' + esc(cellValue(row, 2) || '') + '</td>');
      var place = cellValue(row, 3);
      cells.push('<td class="mono">' + (place ? '<a data-place="' + esc(place) + '">' +
        esc(place) + '</a>' : '') + '</td>');
      for (var c = 0; c < t.columns.length; c++) {
        var v = row[nf + c];
        cells.push('<td class="num">' + esc(v === null ? '\u2014' : textAt(t.columns[c].texts, v)) +
          '</td>');
        if (c === 0 && view.metric) {
          cells.push('<td class="num">' + esc(v === null || !t.share ? '' : textAt(t.share, v)) +
            '</td>');
        }
        if (c === 0 && C !== null) { cells.push(baseTd(e), deltaTd(e)); }
      }
      if (!t.columns.length && row[4].length) {
        cells.push('<td class="mono">' + esc(row[4].map(entityName).join(', ')) + '</td>');
      }
      html.push('<tr>' + cells.join('') + '</tr>');
    }
    $('op-body').innerHTML = html.join('');
    $('op-count').textContent = 'showing ' + shown + ' of ' + order.length + ' operators' +
      (order.length !== rows.length ? ' (filtered from ' + rows.length + ')' : '');
    $('op-more').hidden = shown >= order.length;
    document.querySelectorAll('#op-head th[data-col]').forEach(function (th) {
      var c = Number(th.getAttribute('data-col'));
      if (c === state.column) {
        th.setAttribute('aria-sort', state.dir > 0 ? 'ascending' : 'descending');
      } else {
        th.removeAttribute('aria-sort');
      }
    });
  }
  function refresh() { order = sorted(); body(); }
  header();
  $('op-head').onclick = function (/** @type {any} */ ev) {
    var th = ev.target.closest('th[data-col]');
    if (!th) { return; }
    var c = Number(th.getAttribute('data-col'));
    if (state.column === c) { state.dir = -state.dir; }
    else { state.column = c; state.dir = c >= nf || c === DCOL ? -1 : 1; }
    state.shown = PAGE;
    refresh();
  };
  $('op-more').onclick = function () { state.shown += PAGE; body(); };
  $('op-filter').oninput = function () {
    state.filter = $('op-filter').value;
    state.shown = PAGE;
    refresh();
  };
  $('op-body').onclick = function (/** @type {any} */ ev) {
    var a = ev.target.closest('a[data-place]');
    if (!a) { return; }
    var place = a.getAttribute('data-place'), cut = place.lastIndexOf(':');
    showLine(place.slice(0, cut), Number(place.slice(cut + 1)));
  };
  refresh();
  return {
    state: function () { return { column: state.column, direction: state.dir }; },
    refresh: refresh
  };
}
