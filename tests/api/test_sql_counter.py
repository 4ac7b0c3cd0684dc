"""stapel_sql_statements_total (config/metrics.py): every statement a process sends through
Django's cursor is counted, plus psycopg's own BEGIN and COMMIT around a transaction."""

import pytest
from django.db import connection, transaction
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from accounts.models import Player
from config import metrics

pytestmark = pytest.mark.django_db(transaction=True)


def _counted() -> float:
    return REGISTRY.get_sample_value("stapel_sql_statements_total")


def test_one_query_is_one_statement():
    before = _counted()
    Player.objects.filter(username="nobody").exists()
    assert _counted() == before + 1


def test_a_transaction_counts_its_begin_and_commit_once():
    before = _counted()
    with transaction.atomic():
        Player.objects.filter(username="nobody").exists()
        Player.objects.filter(username="somebody").exists()
    if connection.vendor == "postgresql":
        # Two statements, and the BEGIN and COMMIT psycopg sends around them on their own.
        assert _counted() == before + 4
    else:
        # SQLite (the embedded default): Django sends its BEGIN through the cursor.
        assert _counted() >= before + 2


def test_code_without_django_cursor_reports_its_own_and_metrics_shows_the_total(client):
    before = _counted()
    metrics.sql_statements(2)
    assert _counted() == before + 2

    def scraped():
        text = client.get("/metrics").content.decode()
        return next(s.value for f in text_string_to_metric_families(text) for s in f.samples
                    if s.name == "stapel_sql_statements_total")

    first = scraped()
    Player.objects.filter(username="nobody").exists()
    # The scrape itself counts tables in the database: at least our one query in between.
    assert scraped() >= first + 1
