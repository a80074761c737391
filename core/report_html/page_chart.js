// The report page's script: the icicle chart on a canvas (hierarchy.py's tree: a node's size
// is a figure of the view's metric, whose label the view's scale of figures gives; its share of
// its parent a text of the tree's shares). Click a node to zoom to it, an ancestor bar or the
// trail above to zoom out, hover for figures; siblings narrower than a pixel are drawn as one
// grey "+N" block, so a 20,000-chain result draws only what is visible.
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
            { more: node, count: list.length - k, largest: c });
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
  function sizeText(node) { return V.metric ? figureText(tree.size[node]) : ''; }
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
      return '<b>' + hit.count + ' more below a pixel</b><br><span class="k">the largest</span> ' +
        esc(label(hit.largest)) + ' ' + esc(sizeText(hit.largest)) +
        '<br><span class="k">click to zoom into</span> ' + esc(label(hit.more));
    }
    var node = hit.node, e = tree.entity[node], own = entityFigure(e), out = [];
    out.push('<b>' + esc(label(node)) + '</b> <span class="k">' +
      esc(e >= 0 ? entityKind(e) : kindOf(node)) + '</span>');
    if (e >= 0 && entityName(e) !== V.entities.ids[e]) {
      out.push('<span class="k">id</span> <code>' + esc(V.entities.ids[e]) + '</code>');
    }
    if (own !== null) {
      out.push('<span class="k">figure</span> ' + esc(own));
    } else if (e >= 0) {
      out.push('<span class="k">figure</span> none of its own');
    }
    var drawn = sizeText(node);
    if (own === null || drawn !== own) {  // what lies below reads otherwise than its own
      out.push('<span class="k">drawn as</span> ' + esc(drawn) +
        ' <span class="k">(what lies below)</span>');
    }
    var parent = tree.parent[node];
    if (parent >= 0 && tree.of_parent[node] >= 0) {
      out.push('<span class="k">of ' + esc(label(parent)) + '</span> ' +
        esc(tree.shares[tree.of_parent[node]]));
    }
    var row = deltaOf(e);
    if (row) {
      out.push('<span class="k">change</span> <span class="chg sig-' + sigOf(row) + '">' +
        esc(deltaText(row)) + '</span>');
      out.push('<span class="k">baseline</span> ' + esc(valueText(row, 1)) +
        ' <span class="k">' + esc(sigWords(row)) + '</span>');
      if (row[5] >= 0) { out.push('<span class="k">' + esc(howOf(row)) + '</span>'); }
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
