"""The HTTP machinery every page shares: links and who holds them, the kept pages, post/redirect/get,
the tap guard, live push, host check, security headers and brakes, compression, static files, the server.

No page lives here and none of these modules imports a page (web/pages).
"""
