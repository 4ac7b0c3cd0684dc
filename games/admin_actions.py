"""Moderator actions in the admin that need a few words first (a reason, an end date).

Each ``FormAction`` becomes both a changelist action (select rows, pick the action, fill the
intermediate form, apply) and a button on the object's page leading to the same form. The
action itself is a call to a moderation service, which checks the permission again and
writes the audit log; expected failures come back as admin messages, never as a 500.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html

from accounts.errors import DomainError

DURATIONS = [
    ("1h", "1 hour"), ("24h", "24 hours"), ("7d", "7 days"), ("30d", "30 days"),
    ("forever", "For good"), ("custom", "Until the date below"),
]
_DELTAS = {"1h": timedelta(hours=1), "24h": timedelta(days=1), "7d": timedelta(days=7),
           "30d": timedelta(days=30)}


def badge(text: str, color: str = "grey") -> str:
    return format_html('<span class="stapel-badge {}">{}</span>', color, text)


def admin_link(obj, label=None) -> str:
    """A link to ``obj``'s admin page (or a dash)."""
    if obj is None:
        return "—"
    opts = obj._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, label if label is not None else str(obj))


class ReasonForm(forms.Form):
    reason = forms.CharField(max_length=1000, required=False,
                             widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
                             help_text="Optional; it goes to the audit log.")


class RequiredReasonForm(forms.Form):
    reason = forms.CharField(max_length=1000,
                             widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
                             help_text="Required; it goes to the audit log.")


class UntilForm(RequiredReasonForm):
    """A reason and an end: a quick duration, or a date of one's own choosing."""

    allow_forever = True
    duration = forms.ChoiceField(choices=DURATIONS, initial="7d")
    until = forms.DateTimeField(required=False, help_text="Only with “Until the date below”; "
                                                          "UTC, e.g. 2027-01-31 18:00.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.allow_forever:
            self.fields["duration"].choices = [c for c in DURATIONS if c[0] != "forever"]
            self.fields["duration"].initial = "24h"

    def clean(self):
        data = super().clean()
        duration = data.get("duration")
        if duration == "custom":
            if not data.get("until"):
                self.add_error("until", "Give the date the measure ends.")
            elif data["until"] <= timezone.now():
                self.add_error("until", "The date must lie in the future.")
            data["end"] = data.get("until")
        elif duration == "forever":
            data["end"] = None
        elif duration in _DELTAS:
            data["end"] = timezone.now() + _DELTAS[duration]
        return data


class BanForm(UntilForm):
    allow_forever = True


class MuteForm(UntilForm):
    allow_forever = False


class NoteForm(forms.Form):
    note = forms.CharField(max_length=1000, widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
                           help_text="What was done (or why nothing is to be done).")


@dataclass(frozen=True)
class FormAction:
    name: str
    label: str
    permission: str                         # "app_label.codename"
    form: type[forms.Form]
    apply: Callable[..., object]            # apply(actor, obj, cleaned_data)
    done: str                               # message: "Banned {n} player(s)."
    danger: bool = False
    shown: Callable[[object], bool] = lambda obj: True  # offered on this object's page?


class FormActionsMixin:
    """Give a ModelAdmin ``form_actions``; see the module docstring."""

    form_actions: tuple[FormAction, ...] = ()
    change_form_template = "admin/stapel/change_form.html"

    class Media:
        css = {"all": ["stapel/admin.css"]}

    def _form_action(self, name: str) -> FormAction:
        for action in self.form_actions:
            if action.name == name:
                return action
        raise Http404("no such action")

    def get_actions(self, request, action_location=admin.ActionLocation.CHANGE_LIST):
        actions = super().get_actions(request, action_location=action_location)
        if action_location != admin.ActionLocation.CHANGE_LIST:
            return actions  # an object's page has buttons leading to the same forms
        for fa in self.form_actions:
            if request.user.has_perm(fa.permission):
                actions[fa.name] = (self._changelist_action(fa), fa.name, fa.label + "…")
        return actions

    def _changelist_action(self, fa: FormAction):
        def action(modeladmin, request, queryset):
            if "apply" in request.POST:
                form = fa.form(request.POST)
                if form.is_valid():
                    self._apply(request, fa, list(queryset), form.cleaned_data)
                    return None
            else:
                form = fa.form()
            return self._render(request, fa, form, list(queryset), changelist=True)

        action.__name__ = fa.name
        return action

    def _apply(self, request, fa: FormAction, objects: list, data: dict) -> int:
        done = 0
        for obj in objects:
            try:
                fa.apply(request.user, obj, data)
                done += 1
            except DomainError as exc:
                self.message_user(request, f"{obj}: {exc.message}", messages.ERROR)
        if done:
            self.message_user(request, fa.done.format(n=done), messages.SUCCESS)
        return done

    def _render(self, request, fa: FormAction, form, objects: list, changelist: bool):
        opts = self.model._meta
        context = {
            **self.admin_site.each_context(request),
            "title": f"{fa.label}: {objects[0] if len(objects) == 1 else f'{len(objects)} {opts.verbose_name_plural}'}",
            "form": form, "objects": objects, "fa": fa, "opts": opts,
            "changelist": changelist, "action_checkbox_name": ACTION_CHECKBOX_NAME,
            "select_across": request.POST.get("select_across", "0"),
            "app_label": opts.app_label,
        }
        return TemplateResponse(request, "admin/stapel/action_form.html", context)

    def get_urls(self):
        info = self.model._meta.app_label, self.model._meta.model_name
        return [path("<path:object_id>/do/<str:name>/",
                     self.admin_site.admin_view(self.form_action_view),
                     name="{}_{}_do".format(*info)),
                *super().get_urls()]

    def form_action_view(self, request, object_id, name):
        fa = self._form_action(name)
        if not request.user.has_perm(fa.permission):
            raise PermissionDenied
        obj = self.get_object(request, object_id)
        if obj is None:
            raise Http404("no such object")
        if request.method == "POST":
            form = fa.form(request.POST)
            if form.is_valid():
                self._apply(request, fa, [obj], form.cleaned_data)
                info = self.model._meta.app_label, self.model._meta.model_name
                return HttpResponseRedirect(
                    reverse("admin:{}_{}_change".format(*info), args=[obj.pk]))
        else:
            form = fa.form()
        return self._render(request, fa, form, [obj], changelist=False)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        obj = self.get_object(request, object_id)
        info = self.model._meta.app_label, self.model._meta.model_name
        buttons = []
        if obj is not None:
            for fa in self.form_actions:
                if request.user.has_perm(fa.permission) and fa.shown(obj):
                    buttons.append({"label": fa.label, "danger": fa.danger,
                                    "url": reverse("admin:{}_{}_do".format(*info),
                                                   args=[obj.pk, fa.name])})
        extra_context = {**(extra_context or {}), "form_action_buttons": buttons}
        return super().change_view(request, object_id, form_url, extra_context)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Moderators look; services write."""

    class Media:
        css = {"all": ["stapel/admin.css"]}

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
