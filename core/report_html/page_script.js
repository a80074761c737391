
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('perfline-data').textContent);
  var report = { ready: false, readyAt: null, view: 0, chart: null, table: null, format: null };
  window.perflineReport = report;
  var vscode = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : null;

  // ---- formatting (core/figure_text.py rules) ----
  var TIME = { ms: 1, us: 1, s: 1 };
  function gfmt(v, p) {
    if (v === 0) { return '0'; }
    var e = Math.floor(Math.log10(Math.abs(v)));
    var r = Number(v.toPrecision(p));
    e = r === 0 ? e : Math.floor(Math.log10(Math.abs(r)));
    if (e < -4 || e >= p) {
      var parts = r.toExponential(p - 1).split('e');
      var m = parts[0];
      if (m.indexOf('.') >= 0) { m = m.replace(/0+$/, '').replace(/\.$/, ''); }
      var x = Number(parts[1]);
      return m + 'e' + (x < 0 ? '-' : '+') + (Math.abs(x) < 10 ? '0' : '') + Math.abs(x);
    }
    var s = r.toFixed(Math.max(p - 1 - e, 0));
    return s.indexOf('.') >= 0 ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
  }
  function compact(v) {
    var a = Math.abs(v);
    /** @type {Array<[number, string]>} */
    var lims = [[1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
    for (var i = 0; i < lims.length; i++) {
      if (a >= lims[i][0]) {
        var s = v / lims[i][0];
        return (Math.abs(s) < 10 ? s.toFixed(1) : s.toFixed(0)) + lims[i][1];
      }
    }
    return Number.isInteger(v) ? String(v) : gfmt(v, 3);
  }
  function fmtValue(v, unit) {
    if (v === null || v === undefined) { return '\u2014'; }
    if (!TIME[unit]) { return (compact(v) + ' ' + unit).trim(); }
    var a = Math.abs(v), t;
    if (v === 0) { t = '0'; } else if (a >= 100) { t = v.toFixed(0); }
    else if (a >= 10) { t = v.toFixed(1); } else if (a >= 1) { t = v.toFixed(2); }
    else { t = gfmt(v, 2); }
    return t + ' ' + unit;
  }
  function fmtShare(v, total) {
    if (!(total > 0) || v === null || v === undefined) { return null; }
    var s = 100 * v / total;
    return s > 0 && s < 1 ? '<1%' : s.toFixed(0) + '%';
  }
  function figure(v, metric) {
    if (!metric || v === null || v === undefined) { return '\u2014'; }
    var t = fmtValue(v, metric.unit) + (metric.statistic ? ' ' + metric.statistic : '');
    var s = fmtShare(v, metric.total);
    return s ? t + ' \u00b7 ' + s : t;
  }
  report.format = fmtValue;
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
    var model = [['Name', m.name], ['Format', m.format],
      ['Size', m.size_bytes !== null ? m.size_bytes.toLocaleString('en-US') + ' bytes' : null],
      ['Hash', m.hash]];
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
      var facts = [['producer', r.producer], ['mode', r.mode],
        ['runs', r.runs !== null ? String(r.runs) : null]].filter(function (f) { return f[1]; });
      html += '<h3 class="result-head">Result ' + (r.position + 1) + ': ' + esc(head) + '</h3>';
      html += '<p class="meta">' + facts.map(function (f) {
        return esc(f[0]) + ' <b>' + esc(f[1]) + '</b>';
      }).join(' \u00b7 ') + '</p>';
      if (r.metrics.length) {
        html += '<table class="metrics"><thead><tr><th>Metric</th><th class="num">Value</th>' +
          '<th>Unit</th><th>Note</th></tr></thead><tbody>' + r.metrics.map(function (x) {
          var value = x.value === null ? 'n/a' : fmtValue(x.value, x.unit).replace(/ \S+$/, '');
          if (x.value !== null && !TIME[x.unit]) { value = compact(x.value); }
          return '<tr><td class="mono">' + esc(x.name) + '</td><td class="num">' + esc(value) +
            '</td><td>' + esc(x.unit) + '</td><td class="muted">' + esc(x.reason || '') +
            (x.samples ? esc(x.samples + ' samples') : '') + '</td></tr>';
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
  function entityValue(i) { return i < 0 ? null : V.entities.value[i]; }

  // ---- the compare view: a view's deltas by entity (rows [entity, base, new, delta,
  // significance, p, note(, unit)]) ----
  var CMP = data.comparison, C = null;
  var SIG_MARK = { regressed: '\u25b2', improved: '\u25bc', unchanged: '~', inconclusive: '?' };
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
  function noteOf(row) { return row[6] >= 0 ? C.view.strings[row[6]] : ''; }
  // A call line's change its callees account for (comparison.py's note starts 'inclusive'):
  // coloured unchanged, but it changed; its words say where it is counted instead.
  function isInclusive(row) { return noteOf(row).lastIndexOf('inclusive', 0) === 0; }
  function sigWords(row) {
    return isInclusive(row) ? 'inclusive, counted on the lines it calls' : SIG_TEXT[sigOf(row)];
  }
  function sigOf(row) { return row[1] === null ? 'added' : CMP.significances[row[4]]; }
  function rowUnit(row) { return row.length > 7 ? C.view.strings[row[7]] : C.view.metric.unit; }
  function signed(v, unit) {
    return (v > 0 ? '+' : v < 0 ? '-' : '\u00b1') + fmtValue(Math.abs(v), unit);
  }
  function relative(d, base) {
    if (d === null || base === null) { return null; }
    if (base === 0) { return d === 0 ? '0%' : 'from zero'; }
    var r = 100 * d / Math.abs(base), a = Math.abs(r);
    return (r > 0 ? '+' : r < 0 ? '-' : '') + (a < 10 ? a.toFixed(1) : a.toFixed(0)) + '%';
  }
  function deltaText(row) {
    if (row[1] === null) { return 'new in this run'; }
    if (row[3] === null) { return SIG_MARK.inconclusive + ' ' + fmtValue(row[1], rowUnit(row)); }
    return markOf(sigOf(row), row[3]) + ' ' + signed(row[3], rowUnit(row)) + ' (' +
      relative(row[3], row[1]) + ')';
  }
  // ▲ / ▼: the value went up / down, as in the CLI and the editor (a rate that fell is a
  // regression marked ▼); the colour and the word say whether it is worse.
  function markOf(sig, delta) {
    if ((sig === 'regressed' || sig === 'improved') && delta) {
      return delta > 0 ? '\u25b2' : '\u25bc';
    }
    return sig === 'unchanged' && delta === 0 ? '=' : SIG_MARK[sig];
  }
  function deltaTitle(row) {
    var unit = rowUnit(row), sig = sigOf(row), parts = [];
    parts.push('baseline ' + fmtValue(row[1], unit), 'new ' + fmtValue(row[2], unit));
    if (row[3] !== null) {
      parts.push(signed(row[3], unit) + ' (' + relative(row[3], row[1]) + ')');
    }
    var note = noteOf(row);
    var p = row[5] !== null && row[5] !== undefined ? 'adjusted p = ' + row[5] : '';
    parts.push((isInclusive(row) ? note : SIG_TEXT[sig] + (note ? ': ' + note : '')) +
      (p ? ', ' + p : ''));
    return parts.join(' \u00b7 ');
  }
  function legendHtml() {
    return SIG_ORDER.map(function (s) {
      return '<span><i class="s-' + s + '"></i>' + esc(SIG_TEXT[s]) + '</span>';
    }).join('');
  }

  // ---- icicle chart ----
  var KIND_COLOURS = { model: '#8d99ae', module: '#5b8def', 'function': '#3bb3a0',
    line: '#f2b134', operator: '#f0733a', unit: '#a77bca', more: '#b8bec7' };
  var ROW = 22, MIN_PX = 1;
  function Chart(view) {
    var tree = view.tree, n = tree.parent.length, kids = [], depth = new Int32Array(n);
    var maxDepth = 0, i;
    for (i = 0; i < n; i++) { kids.push([]); }
    for (i = 1; i < n; i++) {
      kids[tree.parent[i]].push(i);
      depth[i] = depth[tree.parent[i]] + 1;
      if (depth[i] > maxDepth) { maxDepth = depth[i]; }
    }
    var canvas = $('chart'), box = $('chart-box'), tip = $('tip');
    var ctx = canvas.getContext('2d'), focus = 0, hits = [], width = 0, aggregates = 0;
    var colourBy = C !== null ? 'change' : 'kind', sigColours = {};
    function kindOf(node) { return tree.kinds[tree.kind[node]]; }
    function changeOf(node) {
      var row = deltaOf(tree.entity[node]);
      return row ? sigOf(row) : 'none';
    }
    function colourOf(node) {
      if (colourBy === 'change') { return sigColours[changeOf(node)]; }
      return KIND_COLOURS[kindOf(node)] || '#999';
    }
    function label(node) {
      return tree.label[node] !== null ? tree.label[node] : entityName(tree.entity[node]);
    }
    function path(node) {
      var p = [];
      for (var x = node; x >= 0; x = tree.parent[x]) { p.unshift(x); }
      return p;
    }
    function rect(x, y, w, colour, text, hit) {
      ctx.fillStyle = colour;
      ctx.fillRect(x, y, Math.max(w - (w > 3 ? 1 : 0), 0.5), ROW - 1);
      hits.push([x, y, w, hit]);
      if (w > 28 && text) {
        var max = Math.floor((w - 8) / 6.6);
        var t = text.length > max ? text.slice(0, Math.max(max - 1, 1)) + '\u2026' : text;
        ctx.fillStyle = '#1b1d21';
        ctx.fillText(t, x + 4, y + ROW / 2 + 0.5);
      }
    }
    function layout(node, x, w) {
      var total = tree.size[node], list = kids[node], cx = x;
      if (!(total > 0)) { return; }
      for (var k = 0; k < list.length; k++) {
        var c = list[k], cw = w * tree.size[c] / total;
        if (cw < MIN_PX) {
          var rest = 0;
          for (var j = k; j < list.length; j++) { rest += tree.size[list[j]]; }
          var rw = w * rest / total;
          if (rw >= 0.25) {
            aggregates += 1;
            rect(cx, depth[c] * ROW, rw, KIND_COLOURS.more, '+' + (list.length - k),
              { more: node, count: list.length - k, size: rest });
          }
          return;
        }
        rect(cx, depth[c] * ROW, cw, colourOf(c), label(c), { node: c });
        layout(c, cx, cw);
        cx += cw;
      }
    }
    function draw() {
      var dpr = window.devicePixelRatio || 1, style = getComputedStyle(document.documentElement);
      SIG_ORDER.forEach(function (s) {
        sigColours[s] = style.getPropertyValue('--sig-' + s).trim() || '#999';
      });
      width = box.clientWidth;
      var height = (maxDepth + 1) * ROW;
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
      canvas.style.height = height + 'px';
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, width, height);
      ctx.font = '12px system-ui, sans-serif';
      ctx.textBaseline = 'middle';
      hits = [];
      aggregates = 0;
      path(focus).forEach(function (a) {
        var colour = a === focus ? colourOf(a) : KIND_COLOURS.more;
        rect(0, depth[a] * ROW, width, colour, label(a) + '  ' + sizeText(a), { node: a });
      });
      layout(focus, 0, width);
      crumbs();
    }
    function sizeText(node) { return V.metric ? fmtValue(tree.size[node], V.metric.unit) : ''; }
    function crumbs() {
      $('crumbs').innerHTML = path(focus).map(function (a) {
        return a === focus ? '<b data-node="' + a + '">' + esc(label(a)) + '</b>'
          : '<a data-node="' + a + '">' + esc(label(a)) + '</a>';
      }).join(' \u203a ');
      $('chart').setAttribute('data-focus', label(focus));
    }
    function at(ev) {
      var r = canvas.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
      for (var k = hits.length - 1; k >= 0; k--) {
        var h = hits[k];
        if (x >= h[0] && x < h[0] + h[2] && y >= h[1] && y < h[1] + ROW) { return h[3]; }
      }
      return null;
    }
    function tipHtml(hit) {
      if (hit.more !== undefined) {
        return '<b>' + hit.count + ' more below a pixel</b><br><span class="k">together</span> ' +
          esc(sizeText(hit.more) ? fmtValue(hit.size, V.metric.unit) : '') +
          '<br><span class="k">click to zoom into</span> ' + esc(label(hit.more));
      }
      var node = hit.node, e = tree.entity[node], own = entityValue(e), out = [];
      out.push('<b>' + esc(label(node)) + '</b> <span class="k">' +
        esc(e >= 0 ? entityKind(e) : kindOf(node)) + '</span>');
      if (e >= 0 && entityName(e) !== V.entities.ids[e]) {
        out.push('<span class="k">id</span> <code>' + esc(V.entities.ids[e]) + '</code>');
      }
      if (own !== null) {
        out.push('<span class="k">figure</span> ' + esc(figure(own, V.metric)));
      } else if (e >= 0) {
        out.push('<span class="k">figure</span> none of its own');
      }
      var size = tree.size[node];
      if (own === null || Math.abs(size - own) > 0.005 * Math.max(Math.abs(own), 1e-12)) {
        out.push('<span class="k">drawn as</span> ' + esc(figure(size, V.metric)) +
          ' <span class="k">(what lies below)</span>');
      }
      var parent = tree.parent[node];
      if (parent >= 0 && tree.size[parent] > 0) {
        out.push('<span class="k">of ' + esc(label(parent)) + '</span> ' +
          (100 * size / tree.size[parent]).toFixed(1) + '%');
      }
      var row = deltaOf(e);
      if (row) {
        out.push('<span class="k">change</span> <span class="chg sig-' + sigOf(row) + '">' +
          esc(deltaText(row)) + '</span>');
        out.push('<span class="k">baseline</span> ' + esc(fmtValue(row[1], rowUnit(row))) +
          ' <span class="k">' + esc(sigWords(row)) + '</span>');
        if (row[6] >= 0) {
          out.push('<span class="k">' + esc(C.view.strings[row[6]] +
            (row[5] !== null ? ', adjusted p = ' + row[5] : '')) + '</span>');
        }
      } else if (C !== null && e >= 0) {
        out.push('<span class="k">change</span> no figure to compare');
      }
      var spans = tree.spans[String(node)];
      if (spans) {
        var count = tree.span_counts[String(node)];
        out.push('<span class="k">shared by ' + count + ' operators</span> ' +
          esc(spans.slice(0, 8).map(entityName).join(', ')) + (count > 8 ? ', \u2026' : ''));
      }
      return out.join('<br>');
    }
    canvas.addEventListener('mousemove', function (ev) {
      var hit = at(ev);
      if (!hit) { tip.style.display = 'none'; return; }
      tip.innerHTML = tipHtml(hit);
      tip.style.display = 'block';
      var r = box.getBoundingClientRect();
      var x = ev.clientX - r.left + 14, y = ev.clientY - r.top + 14;
      if (x + tip.offsetWidth > r.width) { x = Math.max(r.width - tip.offsetWidth - 4, 0); }
      tip.style.left = x + 'px';
      tip.style.top = y + 'px';
    });
    canvas.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
    canvas.addEventListener('click', function (ev) {
      var hit = at(ev);
      if (!hit) { return; }
      zoom(hit.more !== undefined ? hit.more : hit.node);
    });
    $('crumbs').onclick = function (/** @type {any} */ ev) {
      var t = ev.target.closest('a[data-node]');
      if (t) { zoom(Number(t.getAttribute('data-node'))); }
    };
    $('chart-reset').onclick = function () { zoom(0); };
    var pick = $('chart-colour');
    pick.hidden = C === null;
    $('change-legend').hidden = C === null || colourBy !== 'change';
    $('kind-legend').hidden = !$('change-legend').hidden;
    $('change-legend').innerHTML = legendHtml();
    pick.value = colourBy;
    pick.onchange = function () {
      colourBy = pick.value;
      $('change-legend').hidden = colourBy !== 'change';
      $('kind-legend').hidden = colourBy === 'change';
      draw();
    };
    function zoom(node) { focus = node; tip.style.display = 'none'; draw(); }
    window.addEventListener('resize', draw);
    draw();
    return {
      focus: function () { return { index: focus, label: label(focus) }; },
      find: function (text) {
        for (var k = 0; k < n; k++) { if (label(k) === text) { return k; } }
        return -1;
      },
      rect: function (node) {
        var r = canvas.getBoundingClientRect();
        for (var k = 0; k < hits.length; k++) {
          var h = hits[k];
          if (h[3].node === node) {
            return { x: r.left + h[0], y: r.top + h[1], width: h[2], height: ROW };
          }
        }
        return null;
      },
      width: function () { return width; },
      colourBy: function () { return colourBy; },
      change: function (node) { return C !== null ? changeOf(node) : null; },
      nodes: n,
      drawn: function () { return hits.length; },
      aggregated: function () { return aggregates; },
      zoom: zoom
    };
  }

  // ---- annotated sources ----
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
      (fig && fig[3] ? esc(fig[3]) : '') + '</span>' + delta + '<span class="src">' +
      (text === null ? '' : esc(text)) + '</span>' +
      (fig && fig[7] ? '<span class="calls" title="' + esc('Inclusive: this line calls ' +
        fig[7] + '; its figure includes theirs') + '">(calls ' + esc(fig[7]) + ')</span>' : '') +
      '</div>';
  }
  function baseTd(e) {
    var row = deltaOf(e);
    return '<td class="num">' + esc(row && row[1] !== null ? fmtValue(row[1], rowUnit(row)) :
      '\u2014') + '</td>';
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
        '</td><td class="num">' + esc(figure(entityValue(e), V.metric)) + '</td>' +
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
          cells.push('<td class="num">' + esc(v === null ? '\u2014' : fmtValue(v,
            t.columns[c].unit).replace(/ \S+$/, '')) + '</td>');
          if (c === 0 && view.metric) {
            cells.push('<td class="num">' + esc(fmtShare(v, view.metric.total) || '') + '</td>');
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

  // ---- the compare section: legend, how figures were judged, lines, model metrics, changes ----
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
          esc(r[4] !== null ? fmtValue(r[4], strings[r[5]]) : '\u2014') + '</td></tr>';
      }).join('') + '</tbody></table>';
  }
  function modelTable(cv) {
    return '<h3>Result metrics</h3><table class="metrics"><thead><tr><th>Metric</th>' +
      '<th class="num">Baseline</th><th class="num">This run</th><th class="num">Change</th>' +
      '<th>Verdict</th></tr></thead><tbody>' + cv.model.map(function (m) {
        // [name, unit, base, new, delta, significance, p, note]
        var sig = m[2] === null ? 'added' : CMP.significances[m[5]];
        var note = (m[7] >= 0 ? cv.strings[m[7]] : '') +
          (m[6] !== null ? ', adjusted p = ' + m[6] : '');
        var change = m[4] === null ? '\u2014' :
          signed(m[4], m[1]) + ' (' + relative(m[4], m[2]) + ')';
        var mark = SIG_MARK[sig] ? markOf(sig, m[4]) + ' ' : '';
        return '<tr><td class="mono">' + esc(m[0]) + '</td><td class="num">' +
          esc(m[2] !== null ? fmtValue(m[2], m[1]) : '\u2014') + '</td><td class="num">' +
          esc(m[3] !== null ? fmtValue(m[3], m[1]) : '\u2014') + '</td><td class="num sig-' +
          sig + '">' + esc(mark + change) + '</td><td>' + esc(SIG_TEXT[sig]) +
          ' <span class="muted">' + esc(note) + '</span></td></tr>';
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
      esc(String(comparison.level)) + '; figures without them compared exactly (threshold ' +
      esc((100 * comparison.estimate_threshold).toFixed(1)) + '%). Only significant changes ' +
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
          esc(fmtValue(row[1], rowUnit(row)) + ' \u2192 ' + fmtValue(row[2], rowUnit(row))) +
          '</span></li>';
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
})();
