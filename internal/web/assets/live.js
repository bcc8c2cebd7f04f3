// Live updates: mbatchd's /events says when the state changed; the page
// fetches its own main block again (X-Fragment) and swaps it in, at most
// once a second. Forms being typed into are left alone.
(function () {
  "use strict";
  if (!window.EventSource) return;
  var live = document.getElementById("live");
  var busy = false, again = false, last = 0;
  function refresh() {
    var main = document.getElementById("main");
    if (!main || main.contains(document.activeElement) && document.activeElement.tagName === "INPUT") return;
    if (busy) { again = true; return; }
    var wait = 1000 - (Date.now() - last);
    if (wait > 0) { busy = true; setTimeout(function () { busy = false; refresh(); }, wait); return; }
    busy = true; last = Date.now();
    fetch(location.pathname + location.search, { headers: { "X-Fragment": "1" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (t) { if (t !== null) main.innerHTML = t; })
      .catch(function () {})
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }
  var main = document.getElementById("main");
  var es = new EventSource("/events?since=" + encodeURIComponent(main ? main.dataset.version : ""));
  es.addEventListener("version", function () { if (live) live.className = "on"; });
  es.addEventListener("change", refresh);
  // A running job's output grows without a change of state: its page
  // refreshes every few seconds too.
  setInterval(function () { if (document.getElementById("output")) refresh(); }, 3000);
  es.onerror = function () { if (live) live.className = ""; };
})();
