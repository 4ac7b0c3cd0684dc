"""Expected failures of the accounts domain, with stable codes a frontend can switch on."""


# Every code the accounts domain answers with (the ErrorCode enum of the API is built from
# each domain's CODES; a test fails when a raised code is missing from them).
CODES = (
    "unauthenticated", "invalid_credentials", "invalid_username", "username_taken",
    "invalid_password", "invalid_display_name", "invalid_token", "invalid_token_name",
    "malformed_authorization", "token_expired", "banned", "inactive", "not_found",
)


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
