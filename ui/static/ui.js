// roleout's web view: live updates over Server-Sent Events, polling when
// the stream is lost, and the token form. Nothing here writes anything
// but the page and the token cookie.
(function () {
  "use strict";
  var form = document.getElementById("login");
  if (form) {
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var t = document.getElementById("token").value.trim();
      var secure = location.protocol === "https:" ? "; Secure" : "";
      document.cookie = "roleout_token=" + encodeURIComponent(t) + "; Path=/; SameSite=Strict" + secure;
      location.href = "/";
    });
  }
  if (document.body.dataset.live !== "on") { return; }
  var banner = document.getElementById("live");
  var app = document.body.dataset.app || "";
  var timer = null, lost = null, pending = false, again = false;
  function say(text, cls) { banner.textContent = text; banner.className = "live " + cls; }
  // refresh replaces <main> with the same page fetched again; one asked
  // for while a fetch is in flight runs when it ends.
  function refresh() {
    if (pending) { again = true; return; }
    pending = true;
    again = false;
    fetch(location.href, { credentials: "same-origin" }).then(function (r) { return r.text(); }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      var next = doc.querySelector("main");
      if (next) { document.querySelector("main").replaceWith(next); }
      document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || "0") + 1);
    }).catch(function () {}).finally(function () {
      pending = false;
      if (again) { refresh(); }
    });
  }
  function poll() {
    lost = null;
    if (timer) { return; }
    say("live updates lost: polling every 5 s", "polling");
    timer = setInterval(refresh, 5000);
  }
  if (!window.EventSource) { poll(); return; }
  var es = new EventSource("/events" + (app ? "?app=" + encodeURIComponent(app) : ""));
  es.addEventListener("open", function () {
    if (lost) { clearTimeout(lost); lost = null; }
    if (timer) { clearInterval(timer); timer = null; refresh(); }
    say("live", "on");
  });
  ["app", "branch", "reload"].forEach(function (k) { es.addEventListener(k, refresh); });
  // A wave in flight: its counts move in place; a flight that starts,
  // moves to another wave or lands changes the page, fetched again.
  es.addEventListener("flight", function (ev) {
    var f = JSON.parse(ev.data);
    var el = null;
    document.querySelectorAll(".flight").forEach(function (x) { if (x.dataset.flight === f.app) { el = x; } });
    if (f.landed || !el || el.dataset.wave !== String(f.wave)) { refresh(); return; }
    el.dataset.step = f.step;
    el.querySelectorAll(".f-step").forEach(function (x) { x.textContent = f.step; });
    el.querySelectorAll("span.f-applied").forEach(function (x) { x.textContent = f.applied; });
    el.querySelectorAll("span.f-objects").forEach(function (x) { x.textContent = f.objects; });
    el.querySelectorAll("span.f-ready").forEach(function (x) { x.textContent = f.ready; });
    el.querySelectorAll("progress").forEach(function (x) {
      x.max = f.objects;
      x.value = x.classList.contains("f-ready") ? f.ready : f.applied;
    });
    document.body.dataset.flights = String(Number(document.body.dataset.flights || "0") + 1);
  });
  // The stream ends every few minutes on purpose and reconnects at once:
  // only a stream still down after 4 s is lost.
  es.addEventListener("error", function () {
    if (!lost && !timer) { lost = setTimeout(poll, 4000); }
  });
})();
