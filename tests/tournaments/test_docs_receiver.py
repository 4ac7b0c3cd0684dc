"""The receiver example in docs/tournaments.md verifies our signatures and refuses forgeries,
old deliveries and missing headers (the example is run as it is written there)."""

import re
import time
from pathlib import Path

from tournaments import webhooks

DOC = Path(__file__).resolve().parents[2] / "docs" / "tournaments.md"


def _example() -> dict:
    text = DOC.read_text()
    code = re.search(r"A receiver that verifies the signature.*?```python\n(.*?)```", text,
                     re.S).group(1)
    namespace: dict = {"__name__": "docs_example"}
    exec(compile(code, str(DOC), "exec"), namespace)  # noqa: S102 - our own documentation
    return namespace


def test_the_documented_receiver_accepts_our_signature_and_nothing_else():
    example = _example()
    verified = example["verified"]
    secret = webhooks.new_secret()
    body = webhooks.body_of({"type": "webhook.test", "data": {"tournament": {"name": "T"}}})
    now = int(time.time())
    headers = {"webhook-id": "msg_1", "webhook-timestamp": str(now),
               "webhook-signature": webhooks.sign(secret, "msg_1", now, body)}
    assert verified(headers, body, secret)
    # Several signatures (a rotation) are fine when one matches.
    assert verified({**headers, "webhook-signature": "v1,Zm9v " + headers["webhook-signature"]},
                    body, secret)
    assert not verified(headers, body + b" ", secret)
    assert not verified(headers, body, webhooks.new_secret())
    assert not verified({**headers, "webhook-id": "msg_2"}, body, secret)
    assert not verified(headers, body, secret, now=now + 301)
    assert not verified({k: v for k, v in headers.items() if k != "webhook-signature"}, body,
                        secret)
    # And it agrees with our own verifier.
    assert webhooks.verify(secret, headers, body)
