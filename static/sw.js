// The service worker: the app opens, and the players' standings show, without the network.
// Served at /sw.js so that its scope is the whole app (players' pages are under /p/).
// Network first, always: a cached copy is used only when the network fails.
//  - the app shell (/static/…): kept as fetched, for the pages below;
//  - a players' page (/p/<link>): the last copy fetched; static/app.js then puts back the
//    last standings it saw (kept in localStorage with their time) and says how old they are.
// Nothing else is cached: the scorekeeper's screens carry one-time form keys and are never stored,
// and the live polls (/p/<link>/live) must fail when offline, so that the page knows it is.
// The live streams (/p/<link>/stream, /m/…/stream, /g/…/stream: Server-Sent Events) are never
// touched: a stream answered from a cache would end at once and be asked for again, for ever.
"use strict";
var SHELL = "companion-shell-v1";
var PAGES = "companion-pages-v1";
// The server writes each file's fingerprinted address here (/static/app.css?v=…, as the pages
// name them): the page that registered this worker has just loaded them, immutable, so
// fetching them again is answered by the browser's HTTP cache and nothing crosses the network
// twice on a first load (issue 22).  Each is kept under its plain path, which the fetch
// handler below looks up when offline.
var SHELL_FILES = [
  "/static/app.css", "/static/app.js", "/static/icon.svg",
  "/static/icon-192.png", "/static/icon-512.png", "/static/manifest.webmanifest"
];

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(SHELL).then(function (cache) {
    return Promise.all(SHELL_FILES.map(function (address) {
      var url = new URL(address, self.location.href);
      return fetch(url.href).then(function (response) {
        if (!response.ok) throw new Error("could not keep " + url.pathname);
        return cache.put(url.origin + url.pathname, response);
      });
    }));
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) {
      return name !== SHELL && name !== PAGES;
    }).map(function (name) { return caches.delete(name); }));
  }).then(function () { return self.clients.claim(); }));
});

function networkFirst(request, cacheName, key) {
  return fetch(request).then(function (response) {
    if (response.ok && response.type === "basic") {
      var copy = response.clone();
      caches.open(cacheName).then(function (cache) { return cache.put(key, copy); });
    }
    return response;
  }).catch(function (error) {
    return caches.match(key).then(function (cached) {
      if (cached) return cached;
      throw error;
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (/\/stream$/.test(url.pathname) || (request.headers.get("Accept") || "").indexOf("text/event-stream") >= 0) return;
  if (url.pathname.indexOf("/static/") === 0) {
    event.respondWith(networkFirst(request, SHELL, url.origin + url.pathname));
  } else if (/^\/p\/[A-Za-z0-9_-]+$/.test(url.pathname) && request.mode === "navigate") {
    event.respondWith(networkFirst(request, PAGES, url.origin + url.pathname));
  }
});
