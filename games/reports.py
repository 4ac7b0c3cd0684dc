"""The moderators' report queue: open reports on one player fold into one case, and each case
gets a score that orders the queue.

A case's score adds up, over the distinct players who reported that person in the case
within ``REPORT_WINDOW_DAYS``, each reporter's standing (times ``PER_REPORTER``), plus
``PER_PRIOR_ACTION`` for each earlier moderator action against the person (at most
``MAX_PRIOR_ACTIONS`` counted): many credible people complaining about someone moderators
already had to act on comes first. A reporter's standing starts at 1; a guest account or
one less than a day old counts half; each earlier report of theirs that a moderator upheld
adds a quarter, each dismissed one takes a quarter away; a muted or banned reporter counts
the least. It stays within [0.25, 2].
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from .models import AuditLog, Report, ReportStatus

PER_REPORTER = 10.0
PER_PRIOR_ACTION = 5.0
MAX_PRIOR_ACTIONS = 4
MIN_STANDING, MAX_STANDING = 0.25, 2.0
# Moderator actions against a player that count as "acted on before".
PRIOR_ACTIONS = ("player_ban", "player_mute", "chat_hide", "player_tokens_revoke")


def window() -> timedelta:
    return timedelta(days=getattr(settings, "STAPEL_REPORT_WINDOW_DAYS", 7))


def reporter_standing(reporter, *, now=None) -> float:
    now = now or timezone.now()
    if reporter.is_banned(now) or (reporter.muted_until and reporter.muted_until > now):
        return MIN_STANDING
    standing = 1.0
    if reporter.is_guest or now - reporter.date_joined < timedelta(days=1):
        standing *= 0.5
    past = Report.objects.filter(reporter=reporter).aggregate(
        upheld=Count("pk", filter=Q(status=ReportStatus.RESOLVED)),
        dismissed=Count("pk", filter=Q(status=ReportStatus.DISMISSED)))
    standing += 0.25 * past["upheld"] - 0.25 * past["dismissed"]
    return max(MIN_STANDING, min(MAX_STANDING, standing))


def prior_actions(reported_id: int) -> int:
    return AuditLog.objects.filter(target_player_id=reported_id,
                                   action__in=PRIOR_ACTIONS).count()


def case_rescore(case: Report) -> Report:
    """Recount the case's distinct reporters and score (call it inside the transaction that
    added a report to it)."""
    now = timezone.now()
    reports = (Report.objects.filter(Q(pk=case.pk) | Q(case=case), status=ReportStatus.OPEN,
                                     created_at__gte=now - window())
               .select_related("reporter"))
    reporters = {r.reporter_id: r.reporter for r in reports}
    if case.reporter_id not in reporters:
        reporters[case.reporter_id] = case.reporter
    standing = sum(reporter_standing(p, now=now) for p in reporters.values())
    prior = min(prior_actions(case.reported_id), MAX_PRIOR_ACTIONS)
    case.reporter_count = len(reporters)
    case.score = round(PER_REPORTER * standing + PER_PRIOR_ACTION * prior, 2)
    case.save(update_fields=["reporter_count", "score"])
    return case


def open_case_of(reported_id: int) -> Report | None:
    """The open case on this player (its first open report), locked."""
    return (Report.objects.select_for_update()
            .filter(reported_id=reported_id, status=ReportStatus.OPEN, case__isnull=True)
            .order_by("created_at", "id").first())
