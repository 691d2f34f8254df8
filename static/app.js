// A little JavaScript to make the table faster; every action works without it.
"use strict";
(function () {
  // Installable, and readable offline: the service worker (static/sw.js, served at /sw.js so
  // that it covers the whole app). Browsers allow one only on HTTPS or localhost.
  if ("serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register("/sw.js").catch(function () {});
  }
  // A tap in the first moments of a freshly loaded screen does nothing (issue 14, bug 2): a
  // double tap's second tap would land on the new screen's button in the same place and record
  // the next stage too.  Measured second taps came 150-800 ms after the first; performance.now()
  // counts from the start of the navigation, i.e. from the tap that opened this screen, so taps
  // are ignored until 1000 ms after it (800 ms + 200 ms margin; why: companion/web/plumbing/tap_guard.py).
  var guard = +(document.body.getAttribute("data-tap-guard") || 1000);
  function settled() { return performance.now() >= guard; }
  if (!settled()) {
    document.documentElement.setAttribute("data-settling", "");
    setTimeout(function () { document.documentElement.removeAttribute("data-settling"); },
      Math.max(0, guard - performance.now()));
  }
  document.addEventListener("click", function (e) {
    if (settled() || !e.target.closest) return;
    var control = e.target.closest("a, button, label, summary, input, select");
    if (control) {
      e.preventDefault(); e.stopPropagation();
      swallowed(control);
    }
  }, true);
  // A swallowed tap shows that it was (issue 20, item 12): the control it landed on flashes and
  // a note at the top of the screen says why, for 2 s, so a scorekeeper whose deliberate tap came
  // too soon knows to tap again (and one whose tap was the second of a double tap, not to).
  var swallowedFor = 0;
  function swallowed(control) {
    var shown = control.closest("label") || control, note = document.querySelector(".tap-again");
    if (!note) {
      note = document.createElement("p");
      note.className = "tap-again"; note.setAttribute("role", "status");
      document.body.appendChild(note);
    }
    note.textContent = "That tap came as the screen changed, so it did nothing. If you meant it, tap again.";
    note.hidden = false;
    document.querySelectorAll(".swallowed").forEach(function (c) { c.classList.remove("swallowed"); });
    shown.classList.add("swallowed");
    clearTimeout(swallowedFor);
    swallowedFor = setTimeout(function () { note.hidden = true; shown.classList.remove("swallowed"); }, 2000);
  }
  // The live pages follow the table (or the group) by push: an EventSource on the page's stream
  // (data-stream: Server-Sent Events, companion/web/plumbing/live_push.py), each change the moment it is
  // committed.  Without EventSource, or where the server does not offer a stream (no data-stream),
  // the players' page and the scorekeeper's note poll with conditional GETs (304 when unchanged).
  var live = document.getElementById("live") || document.getElementById("group-live");
  var staleNote = document.querySelector(".stale");
  var lastOk = Date.now();
  var replaced = false;
  function clock(ms) {
    var d = new Date(ms), pad = function (n) { return (n < 10 ? "0" : "") + n; };
    return pad(d.getHours()) + ":" + pad(d.getMinutes());
  }
  // A players' page that stops updating says so (issue 14, item 10): a replaced link (404)
  // never comes back; a busy or failing server (429, 5xx) or no network may.
  function showAge(status) {
    if (!staleNote) return;
    if (status === 404) {
      replaced = true;
      staleNote.hidden = false;
      staleNote.className = "stale flash warn";
      staleNote.textContent = "This link was replaced: ask the scorekeeper for the new QR code.";
      notLive(true);
      return;
    }
    var failing = status === 0 || status === 429 || status >= 500;
    staleNote.hidden = !failing;
    staleNote.className = failing ? "stale flash warn" : "stale muted";
    if (failing) staleNote.textContent = "Not updating since " + clock(lastOk) + ": these standings may be out of date.";
    notLive(failing);
  }
  // The note sits at the top of the page, above the standings, and stays there as the page
  // scrolls; the standings under it are marked as no longer live (issue 20, item 7: at the foot
  // of a long page, the note went unseen while the top kept the old standings as if live).
  function notLive(stale) {
    live.classList.toggle("not-live", stale);
    if (stale) live.setAttribute("aria-describedby", staleNote.id); else live.removeAttribute("aria-describedby");
  }
  var versionOf = function (tag) { var m = /-v(\d+)-/.exec(tag || ""); return m ? +m[1] : -1; };
  // after(status), if given, runs after each poll: the status, or 0 when the network failed.
  function poll(el, onChange, after) {
    var url = el.getAttribute("data-live") || el.getAttribute("data-watch");
    var etag = el.getAttribute("data-etag");
    var status = 0;
    fetch(url, {headers: {"If-None-Match": '"' + etag + '"'}, cache: "no-cache", credentials: "same-origin"})
      .then(function (r) {
        status = r.status;
        if (r.status === 200 || r.status === 304) lastOk = Date.now();
        if (r.status === 200) {
          var tag = (r.headers.get("ETag") || "").replace(/^W\//, "").replace(/"/g, "");
          if (tag) { el.setAttribute("data-etag", tag); el.setAttribute("data-version", versionOf(tag)); }
          return r.text().then(onChange);
        }
      })
      .catch(function () { status = 0; })
      .then(function () {
        if (after) { try { after(status); } catch (e) {} }
        if (el === live) showAge(status);
        if (replaced) return;  // a replaced link answers 404 for good: stop asking
        // a server that says it is busy (429) is asked again later
        if (status === 429) setTimeout(function () { poll(el, onChange, after); }, 10 * 1000);
        // every 800 ms: a change reaches a phone within 1 s at p95 (bench/load_bench.py, issue 14 item 11)
        else setTimeout(function () { poll(el, onChange, after); }, 800);
      });
  }
  // The stream: each event's data takes the place of the live part, its id (the version) kept in
  // data-version, which a new stream starts from (?since=; the browser itself sends Last-Event-ID
  // when it comes back after a stream's end).  A phone that sleeps may lose its stream without a
  // word (iOS): on waking (visible again, shown again from the page cache, back online) it opens a
  // new one, which sends what changed meanwhile at once.  When the stream fails, the page asks
  // the plain way why: a 404 is a replaced link (for good); anything else, it opens one again.
  function push(el, onChange, after) {
    var url = el.getAttribute("data-stream"), source = null, asking = 0, again = 0, stopped = false;
    function report(status) {
      if (status === 200) lastOk = Date.now();
      if (after) { try { after(status); } catch (e) {} }
      if (el === live) showAge(status);
    }
    function open() {
      if (stopped) return;
      clearTimeout(asking); clearTimeout(again);
      if (source) source.close();
      var since = el.getAttribute("data-version") || "";
      source = new EventSource(url + (url.indexOf("?") < 0 ? "?" : "&") + "since=" + encodeURIComponent(since));
      source.onopen = function () { report(200); };
      source.onmessage = function (e) {
        if (e.lastEventId) el.setAttribute("data-version", e.lastEventId);
        onChange(e.data);
        report(200);
      };
      source.onerror = function () {
        // a stream whose time was up: the browser comes back by itself a second later; a failed one
        // (or no network) is looked into
        clearTimeout(asking);
        var down = source.readyState === EventSource.CLOSED || navigator.onLine === false;
        asking = setTimeout(ask, down ? 0 : 4000);
      };
    }
    function ask() {
      if (stopped || (source && source.readyState === EventSource.OPEN)) return;
      var plain = el.getAttribute("data-live") || el.getAttribute("data-watch") || location.href;
      fetch(plain, {method: "HEAD", cache: "no-store", credentials: "same-origin"})
        .then(function (r) { return r.status; }, function () { return 0; })
        .then(function (status) {
          if (source && source.readyState === EventSource.OPEN) return;
          report(status === 304 ? 200 : status);
          if (status === 404) { stopped = true; source.close(); return; }
          if (source.readyState === EventSource.CLOSED) again = setTimeout(open, status === 429 ? 10 * 1000 : 3000);
        });
    }
    function wake() { if (!stopped) open(); }
    document.addEventListener("visibilitychange", function () { if (document.visibilityState === "visible") wake(); });
    window.addEventListener("pageshow", function (e) { if (e.persisted) wake(); });
    window.addEventListener("online", wake);
    window.addEventListener("offline", function () {  // say so at once; no stream tried while offline
      clearTimeout(asking); clearTimeout(again);
      if (source) source.close();
      if (!stopped) report(0);
    });
    open();
  }
  function follow(el, onChange, after) {
    if (el.getAttribute("data-stream") && typeof EventSource === "function") push(el, onChange, after);
    else if (el.getAttribute("data-live") || el.getAttribute("data-watch")) poll(el, onChange, after);
  }
  if (live && live.id === "group-live") follow(live, function (html) { live.innerHTML = html; });
  else if (live) {
    // The last standings this phone saw, and when the server last confirmed them: put back,
    // with their age, when the first word after a reload is a failure (the service worker, static/sw.js,
    // keeps the page itself; without it, the browser's own offline page shows instead).
    var key = "live:" + location.pathname, saved = null, first = true;
    try { saved = JSON.parse(localStorage.getItem(key) || "null"); } catch (e) {}
    var savedVersion = function (s) { return s.v !== undefined ? +s.v : versionOf(s.etag); };
    follow(live, function (html) { live.innerHTML = html; }, function (status) {
      var shown = +(live.getAttribute("data-version") || -1);
      if (status === 200 || status === 304) {
        saved = {html: live.innerHTML, v: shown, at: lastOk};
        try { localStorage.setItem(key, JSON.stringify(saved)); } catch (e) {}
      } else if (status === 0 && first && saved && saved.html && savedVersion(saved) >= shown) {
        if (savedVersion(saved) !== shown) { live.innerHTML = saved.html; live.setAttribute("data-version", savedVersion(saved)); }
        lastOk = saved.at;
      }
      first = false;
    });
  }
  // The scorekeeper's page and the organiser's: say when another phone has recorded (the
  // organiser's note comes with the stream's words and link).
  document.querySelectorAll(".watch[data-watch], .watch[data-stream]").forEach(function (watch) {
    follow(watch, function (html) {
      if (!watch.hasAttribute("data-watch")) watch.innerHTML = html;
      watch.hidden = false;
    });
  });

  // Keep the screen awake (issue 39, docs/display.md): the table display always ([data-wake-lock]); the
  // scorekeeper's table when "Keep this screen awake" is ticked (#keep-awake, kept in this phone's
  // localStorage).  A lock is let go by the browser whenever the page is hidden, so it is asked for again
  // each time the page is shown.  Where the browser has no Screen Wake Lock, or refuses it (no HTTPS, a
  // battery saver), a line says the screen may go dark.
  var wakeNote = document.querySelector(".wake-note"), wakeBox = document.getElementById("keep-awake");
  var wanted = !!document.querySelector("[data-wake-lock]"), lock = null;
  if (wakeBox) {
    try { wanted = localStorage.getItem("keep-awake") === "1"; } catch (e) {}
    wakeBox.checked = wanted;
    var hiddenBox = wakeBox.closest("[hidden]");
    if (hiddenBox) hiddenBox.hidden = false;  // without this script the box would do nothing: it stays hidden
    wakeBox.addEventListener("change", function () {
      wanted = wakeBox.checked;
      try { localStorage.setItem("keep-awake", wanted ? "1" : "0"); } catch (e) {}
      if (wanted) awake(); else if (lock) { lock.release().catch(function () {}); lock = null; }
      if (!wanted && wakeNote) wakeNote.hidden = true;
    });
  }
  function cannotWake() { if (wakeNote && wanted) wakeNote.hidden = false; }
  function awake() {
    if (!wanted || document.visibilityState !== "visible" || (lock && !lock.released)) return;
    if (!("wakeLock" in navigator) || !navigator.wakeLock.request) { cannotWake(); return; }
    navigator.wakeLock.request("screen").then(function (l) {
      lock = l;
      if (wakeNote) wakeNote.hidden = true;
    }, cannotWake);
  }
  document.addEventListener("visibilitychange", awake);
  awake();

  // Start a night: the first-dealer list names each seat's player as the names are typed.
  document.querySelectorAll("select.dealer-pick").forEach(function (select) {
    var form = select.closest("form");
    function relabel() {
      form.querySelectorAll("input[data-seat]").forEach(function (input) {
        var option = select.querySelector('option[value="' + input.getAttribute("data-seat") + '"]');
        var name = input.value.trim();
        if (option) option.textContent = name || "Seat " + input.getAttribute("data-seat") + " (empty)";
      });
    }
    form.addEventListener("input", relabel);
  });

  // The game lists (First game on the home page, Game on the next-game screen): picking a game
  // puts its own rules under the list at once, so the rules shown are always the picked game's
  // (issue 20, item 5).  Without JavaScript, or before they arrive, the server shows them
  // instead of starting anything: the form says whose rules it showed (rules_of).
  document.querySelectorAll("select[data-pick-game]").forEach(pickGame);
  function pickGame(select) {
    var form = select.closest("form");
    select.addEventListener("change", function () {
      var shown = form.querySelector(".rules-of"), kind = select.value;
      if (!shown || shown.getAttribute("data-rules-of") === kind) return;
      shown.setAttribute("aria-busy", "true");
      fetch(select.getAttribute("data-pick-game") + "?game=" + encodeURIComponent(kind), {credentials: "same-origin"})
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (!html || select.value !== kind) return;  // picked again since: that fetch puts its rules
          var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("form .rules-of");
          if (fresh && fresh.getAttribute("data-rules-of") === kind) shown.replaceWith(document.importNode(fresh, true));
        })
        .catch(function () {})
        .then(function () { shown.removeAttribute("aria-busy"); });
    });
  }

  // A tie among some: with others ticked, "Ben won" records Ben and them tied; say so on the button.
  document.querySelectorAll("fieldset.tie").forEach(function (tie) {
    var form = tie.closest("form");
    function relabel() {
      var ticked = Array.prototype.map.call(tie.querySelectorAll("input:checked"), function (i) { return i.value; });
      form.querySelectorAll(".winners button[data-name]").forEach(function (b) {
        var name = b.getAttribute("data-name");
        var others = ticked.filter(function (n) { return n !== name; });
        b.textContent = others.length ? name + " tied with " + others.join(", ") : name + " won";
      });
    }
    tie.addEventListener("change", relabel);
    relabel();
  });

  // The sticky confirm bar hides no tile (issue 20, item 10): a tile half under the bar invites a
  // tap that lands on the bar and records without that player (the dealer, whose tile comes last).
  // A screen whose tiles run under the bar opens scrolled just enough to show the last of them
  // above it, as long as the question stays on the screen; scroll-padding (static/app.css) keeps
  // a tile reached by the keyboard clear of the bar as well.
  function clearOfBar(bar) {
    var form = bar.closest("form"), question = document.getElementById("ask");
    if (!form || bar.closest("details:not([open])") || window.scrollY > 0) return;
    var box = bar.getBoundingClientRect(), top = box.top;
    if (Math.abs(box.bottom - window.innerHeight) > 1) return;  // not stuck at the foot of the screen
    var under = Array.prototype.filter.call(form.querySelectorAll(".toggle, .winners button"), function (tile) {
      return tile.getBoundingClientRect().bottom > top && tile.compareDocumentPosition(bar) & Node.DOCUMENT_POSITION_FOLLOWING;
    });
    if (!under.length) return;
    var by = under[under.length - 1].getBoundingClientRect().bottom - top + 8;
    if (question) by = Math.min(by, question.getBoundingClientRect().top - 8);
    if (by > 0) window.scrollBy(0, by);
  }
  document.querySelectorAll(".ask .confirm").forEach(clearOfBar);

  // The report's audit is one tap away, in <details class="audit"> (issue 20, item 16), and the
  // organiser's page folds each section in a <details class="part"> (issue 35).  A link to
  // something inside a closed one (a player's chips from the players' page, a section from the
  // section bar, a save returning to its section) opens it and every fold around it, on load,
  // on hashchange and on a tap of a link to where the address already points; a printout shows
  // it all, with each payment's "Why?": static/app.css does so where the browser styles
  // ::details-content; this does it everywhere else, and closes them again after printing.
  var FOLDS = "details.audit, details.part, details.fold";
  function openTarget() {
    var id = location.hash.length > 1 && decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) return;
    var opened = false;
    for (var d = target.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) {
      if (!d.open && d.matches(FOLDS)) { d.open = true; opened = true; }
    }
    if (opened) target.scrollIntoView();
  }
  if (document.querySelector(FOLDS)) {
    openTarget();
    window.addEventListener("hashchange", openTarget);
    document.addEventListener("click", function (event) {
      var link = event.target.closest && event.target.closest('a[href^="#"]');
      if (link && link.getAttribute("href") === location.hash) setTimeout(openTarget, 0);  // no hashchange then
    });
    var openedToPrint = [];
    window.addEventListener("beforeprint", function () {
      openedToPrint = Array.prototype.filter.call(
        document.querySelectorAll("details.audit:not([open]), details.why:not([open]), details.records:not([open]), " +
                                  "details.part:not([open]), details.fold:not([open])"),
        function (d) { d.open = true; return true; });
    });
    window.addEventListener("afterprint", function () {
      openedToPrint.forEach(function (d) { d.open = false; });
      openedToPrint = [];
    });
  }

  // Card picker: tap cards instead of typing them.  It fills one player's field at a time and
  // moves on by itself when that field has its cards; a card shown by one player cannot be
  // tapped for another (one deck per hand; issue 14, item 5).  The fields come in speaking
  // order, which need not be the order the Yes players were tapped in, so whose field the cards
  // go to is written large above the cards and stays in view while they are tapped, and a
  // button per player picks whose cards come next (issue 20, item 9: cards meant for Ben went
  // to Dan, and the app paid the wrong player).
  var ranks = "23456789TJQKA".split(""), suits = [["s", "♠"], ["h", "♥"], ["d", "♦"], ["c", "♣"]];
  var symbols = {"♠": "S", "♤": "S", "♥": "H", "♡": "H", "♦": "D", "♢": "D", "♣": "C", "♧": "C"};
  // "10h", "Th" and "T♥" are the same card: the picker counts typed and tapped cards alike
  function parse(text) {
    return (text.replace(/️/g, "").match(/(10|[2-9TJQKA])[SHDC♠-♧]/gi) || []).map(function (c) {
      var suit = c.slice(-1);
      return c.slice(0, -1).replace(/^10$/, "T").toUpperCase() + (symbols[suit] || suit.toUpperCase());
    });
  }
  // A card button's name as a screen reader says it: "8 of spades", not "8s" (issue 20, item 14).
  function cardName(rank, suit) {
    var ranks = {T: "10", J: "Jack", Q: "Queen", K: "King", A: "Ace"};
    var suitNames = {s: "spades", h: "hearts", d: "diamonds", c: "clubs"};
    return (ranks[rank] || rank) + " of " + suitNames[suit];
  }
  document.querySelectorAll(".picker").forEach(function (picker) {
    var form = picker.closest("form"), inputs = Array.prototype.slice.call(form.querySelectorAll(".cardinput"));
    var whose = form.querySelector(".whose"), note = form.querySelector(".picking"), choose = form.querySelector(".whose-pick");
    if (!inputs.length) return;
    var taken = parse(picker.getAttribute("data-taken") || "");
    function need(i) { return +i.getAttribute("data-count"); }
    function nameOf(i) { return i.closest("label").firstChild.textContent.trim(); }
    function firstOpen() { return inputs.filter(function (i) { return parse(i.value).length < need(i); })[0] || inputs[0]; }
    var current = firstOpen();
    inputs.forEach(function (i) { i.addEventListener("focus", function () { current = i; mark(); }); });
    // whose cards come next: one button per player, and one to empty the chosen player's field
    function control(className, onTap) {
      var b = document.createElement("button");
      b.type = "button"; b.className = className;
      b.addEventListener("click", function () { onTap(); mark(); });
      if (choose) choose.appendChild(b);
      return b;
    }
    var players = inputs.map(function (i) { return control("who", function () { current = i; }); });
    var clear = control("clear", function () { current.value = ""; });
    suits.forEach(function (s) {
      ranks.slice().reverse().forEach(function (r) {
        var b = document.createElement("button");
        b.type = "button"; b.className = s[0]; b.textContent = r + s[1];
        b.setAttribute("aria-pressed", "false"); b.setAttribute("data-card", r + s[0]);
        b.setAttribute("aria-label", cardName(r, s[0]));
        b.addEventListener("click", function () {
          var code = (r + s[0]).toUpperCase(), cards = parse(current.value);
          if (owner(code) && owner(code) !== current) return;  // another player's card
          var at = cards.indexOf(code);
          if (at >= 0) cards.splice(at, 1); else cards.push(code);
          current.value = cards.map(function (c) { return c[0] + c[1].toLowerCase(); }).join(" ");
          if (cards.length >= need(current)) current = firstOpen();  // on to the next field by itself
          mark();
        });
        picker.appendChild(b);
      });
    });
    function owner(code) {
      if (taken.indexOf(code) >= 0) return "taken";
      return inputs.filter(function (i) { return parse(i.value).indexOf(code) >= 0; })[0] || null;
    }
    function count(i) { return parse(i.value).length + " of " + need(i); }
    function mark() {
      picker.querySelectorAll("button").forEach(function (b) {
        var who = owner(b.getAttribute("data-card").toUpperCase());
        b.setAttribute("aria-pressed", who ? "true" : "false");
        b.disabled = !!who && who !== current;
      });
      inputs.forEach(function (i) { i.closest("label").classList.toggle("filling", i === current); });
      players.forEach(function (b, k) {
        var i = inputs[k];
        b.textContent = nameOf(i) + " " + parse(i.value).length + "/" + need(i);
        b.setAttribute("aria-label", "Cards for " + nameOf(i) + ", " + count(i));
        b.setAttribute("aria-pressed", i === current ? "true" : "false");
      });
      clear.textContent = "Clear";
      clear.setAttribute("aria-label", "Clear " + nameOf(current) + "'s cards");
      clear.disabled = !current.value.trim();
      if (note) {  // "The cards you tap go to BEN (0 of 7)", the name large
        var name = document.createElement("strong");
        name.className = "whose-name"; name.textContent = nameOf(current);
        note.textContent = "The cards you tap go to ";
        note.appendChild(name);
        note.appendChild(document.createTextNode(" (" + count(current) + ")"));
      }
    }
    inputs.forEach(function (i) { i.addEventListener("input", mark); });
    mark();
    if (whose) whose.hidden = false;
    picker.hidden = false;
  });
})();

// A scorekeeper's tap that cannot reach the server (issue 21, item 14).  The table's Wi-Fi drops
// for a few seconds: a form posted then would leave the browser's own "no internet" page, and
// the scorekeeper would have to find the way back.  So a tap on a scorekeeper's screen (/k/…)
// first makes sure the server answers (any answer: /healthz, or no request at all when the
// phone knows it is offline); if not, the screen stays as it was, with the same request key,
// says at once that the tap was not sent, and sends it by itself as soon as the server answers
// again (or on one more tap).  The request key records it once even if it did arrive.
(function () {
  "use strict";
  var PROBE_MS = 3000, RETRY_MS = 2000;
  function scorekeeperForm(form) {
    if ((form.getAttribute("method") || "").toLowerCase() !== "post") return false;
    try { return new URL(form.action, location.href).pathname.indexOf("/k/") === 0; } catch (e) { return false; }
  }
  function reachable() {
    if (navigator.onLine === false) return Promise.resolve(false);
    var abort = typeof AbortController === "function" ? new AbortController() : null;
    var timer = abort && setTimeout(function () { abort.abort(); }, PROBE_MS);
    return fetch("/healthz", {cache: "no-store", credentials: "same-origin", signal: abort && abort.signal})
      .then(function () { return true; }, function () { return false; })
      .then(function (ok) { if (timer) clearTimeout(timer); return ok; });
  }
  var unsent = null;   // {form, submitter}: the tap waiting for the network
  var sending = false; // a tap is being checked or sent: further taps on this screen do nothing
  var retry = null;
  function say(form, text) {
    var note = form.querySelector(".unsent");
    if (!note) {
      note = document.createElement("p");
      note.className = "unsent flash warn";
      note.setAttribute("role", "alert");
      form.insertBefore(note, form.firstChild);
    }
    note.textContent = text;
    return note;
  }
  function send(form, submitter) {
    sending = true;
    reachable().then(function (ok) {
      if (ok) {
        if (unsent) say(form, "Sending the tap again…");
        unsent = null;
        clearInterval(retry); retry = null;
        form.setAttribute("data-sending", "");
        form.requestSubmit(submitter);  // the button tapped goes with the form, as a tap sends it
        return;
      }
      sending = false;
      unsent = {form: form, submitter: submitter};
      say(form, "Not sent: no network. It is sent by itself when the network is back (or tap again); " +
        "it is recorded once.");
      if (!retry) retry = setInterval(function () { if (unsent && !sending) send(unsent.form, unsent.submitter); }, RETRY_MS);
    });
  }
  document.addEventListener("submit", function (e) {
    var form = e.target;
    // a browser that cannot say which button was tapped, or send it again, posts as before
    if (!scorekeeperForm(form) || !e.submitter || !form.requestSubmit) return;
    if (form.hasAttribute("data-sending")) { form.removeAttribute("data-sending"); return; }  // checked: goes
    e.preventDefault();
    if (sending) return;  // the same tap again while the first is on its way
    if (unsent && unsent.form !== form) { var old = unsent.form.querySelector(".unsent"); if (old) old.remove(); }
    send(form, e.submitter);
  });
  window.addEventListener("online", function () { if (unsent && !sending) send(unsent.form, unsent.submitter); });
  // back to this screen from the next one (the browser's page cache): nothing is on its way
  window.addEventListener("pageshow", function (e) { if (e.persisted) { sending = false; unsent = null; } });
})();
