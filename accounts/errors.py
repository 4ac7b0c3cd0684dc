"""Expected failures of the accounts domain, with stable codes a frontend can switch on."""


class DomainError(Exception):
    """Base of every expected failure in Stapel's services: a code, a safe message, a field."""

    code = "error"

    def __init__(self, code: str | None = None, message: str = "", *, field: str | None = None,
                 extensions: dict | None = None):
        self.code = code or self.code
        self.message = message or self.code.replace("_", " ")
        self.field = field
        # Further facts for a client (``lastSeq``...), beside ``code`` in a GraphQL error.
        self.extensions = extensions or {}
        super().__init__(self.message)


class AuthError(DomainError):
    code = "unauthenticated"
