"""Django's session, auth, CSRF and message middleware, for the admin only.

They are old-style middleware, and under ASGI each of them runs its hooks through
``sync_to_async``: two thread hops apiece on every request. ``/graphql/`` authenticates with
bearer tokens and needs none of them (CORS is handled before, natively async), so this
wrapper lets GraphQL requests pass straight through and gives every other path the
middleware unchanged.
"""

from django.utils.module_loading import import_string

API_PREFIX = "/graphql"


def site_only(dotted_path: str):
    """A subclass of the middleware (so Django's checks still find it) that skips it for
    API paths."""
    middleware_class = import_string(dotted_path)

    class SiteOnly(middleware_class):
        sync_capable = False
        async_capable = True

        def __call__(self, request):
            if request.path.startswith(API_PREFIX):
                return self.get_response(request)
            return super().__call__(request)

    SiteOnly.__name__ = SiteOnly.__qualname__ = middleware_class.__name__
    return SiteOnly


SecurityMiddleware = site_only("django.middleware.security.SecurityMiddleware")
SessionMiddleware = site_only("django.contrib.sessions.middleware.SessionMiddleware")
CommonMiddleware = site_only("django.middleware.common.CommonMiddleware")
CsrfViewMiddleware = site_only("django.middleware.csrf.CsrfViewMiddleware")
AuthenticationMiddleware = site_only("django.contrib.auth.middleware.AuthenticationMiddleware")
MessageMiddleware = site_only("django.contrib.messages.middleware.MessageMiddleware")
XFrameOptionsMiddleware = site_only("django.middleware.clickjacking.XFrameOptionsMiddleware")
