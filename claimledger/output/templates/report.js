(function () {
  "use strict";
  // Every finding has an index; anchors (draft highlights or list items) carry the
  // indexes they stand for in data-idxs. The evidence panels are rendered already
  // (and escaped) on the server side: this script only shows and hides them.
  var order = (document.body.getAttribute("data-order") || "").split(" ").filter(Boolean).map(Number);
  var anchors = Array.prototype.slice.call(document.querySelectorAll("[data-idxs]"));
  var anchorOf = {};
  var tierOf = {};
  anchors.forEach(function (el) {
    el.getAttribute("data-idxs").split(" ").forEach(function (i) {
      anchorOf[i] = el;
      var panel = document.getElementById("ev-" + i);
      var m = panel && /tier-(\S+)/.exec(panel.className);
      tierOf[i] = m ? m[1] : "HIGH";
    });
  });
  var hidden = {};
  var current = -1;
  var placeholder = document.getElementById("placeholder");

  function visible(i) { return !hidden[tierOf[i]]; }

  function select(i, scroll) {
    anchors.forEach(function (el) { el.classList.remove("selected"); el.removeAttribute("aria-current"); });
    document.querySelectorAll("section.evidence").forEach(function (s) { s.hidden = true; });
    current = i;
    if (i < 0) { placeholder.hidden = false; return; }
    placeholder.hidden = true;
    var a = anchorOf[i];
    a.classList.add("selected");
    a.setAttribute("aria-current", "true");
    document.getElementById("ev-" + i).hidden = false;
    if (scroll !== false) { a.scrollIntoView({ block: "nearest" }); }
  }

  function step(delta) {
    if (!order.length) { return; }
    var pos = order.indexOf(current);
    for (var n = 0; n < order.length; n++) {
      pos = pos < 0 ? (delta > 0 ? 0 : order.length - 1) : (pos + delta + order.length) % order.length;
      if (visible(order[pos])) { select(order[pos]); return; }
    }
  }

  function activate(el) {
    var idxs = el.getAttribute("data-idxs").split(" ").map(Number).filter(visible);
    if (!idxs.length) { return; }
    // clicking a highlight that stands for several findings cycles through them
    var at = idxs.indexOf(current);
    select(idxs[(at + 1) % idxs.length], false);
  }

  anchors.forEach(function (el) {
    el.addEventListener("click", function () { activate(el); });
    el.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); activate(el); }
    });
  });

  function applyFilters() {
    anchors.forEach(function (el) {
      var shown = el.getAttribute("data-idxs").split(" ").some(visible);
      if (el.tagName === "MARK") {
        el.classList.toggle("filtered", !shown);
        el.tabIndex = shown ? 0 : -1;
      } else {
        el.hidden = !shown;
      }
    });
    if (current >= 0 && !visible(current)) { select(-1); }
  }

  document.querySelectorAll("[data-tier-filter]").forEach(function (box) {
    box.addEventListener("change", function () {
      hidden[box.getAttribute("data-tier-filter")] = !box.checked;
      applyFilters();
    });
  });
  document.getElementById("filters").addEventListener("submit", function (ev) { ev.preventDefault(); });

  document.addEventListener("keydown", function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    var t = ev.target;
    if (t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && t.type === "text"))) { return; }
    if (ev.key === "j" || ev.key === "n") { ev.preventDefault(); step(1); }
    else if (ev.key === "k" || ev.key === "p") { ev.preventDefault(); step(-1); }
    else if (ev.key === "Escape") { select(-1); }
  });
})();
