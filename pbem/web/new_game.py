"""Blueprint 'new_game': a visitor starts a game with friends and bots, without an account.

GET /new        the form (the creator plays too; each friend gets one invitation, may decline)
POST /new       `proposals.propose_game`: errors inline per field (422, nothing created), a
                limit against abuse (429), else 303 to /new/sent; the page's nonce (`form_id`)
                makes one proposal of one form, however often and fast it is sent
GET /new/sent   "check your inbox": only the creator is emailed, with a confirmation link

Nobody but the creator is emailed before the creator confirms (pbem/web/invites.py). The answer
is the same for any address: whether one cannot be mailed shows on the confirmation page only.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import engine
from flask import Blueprint, redirect, render_template, request, session

from pbem import i18n
from pbem.appctx import config, db
from pbem.db import session_scope
from pbem.games import proposals
from pbem.games.limits import LimitReached
from pbem.games.errors import GameError
from pbem.games.settings import DEFAULT_SETTINGS, GameSettings, SettingsProblem, read_settings
from pbem.games.setup import SetupError, SetupProblem
from pbem.i18n import gettext as _
from pbem.letters.invitations import ON_TIMEOUT_WORDS
from pbem.web.limited import limit_page

bp = Blueprint("new_game", __name__)

DEADLINE_CHOICES = (24, 48, 72, 168)  # hours a player has for a move (DEFAULT_DEADLINE_HOURS among them)
SENT_TO = "korsar_new_game_sent_to"  # the session key of the address the confirmation went to
# The form's fields, as typed (text fields) or checked (checkboxes).
# The engine's options are fields by their names: a yes/no option is a checkbox.
_OPTIONS = engine.Options().to_json()
TEXT_FIELDS = ("your_name", "your_email", "players", "name", "deadline_hours", "reminders", "on_timeout",
               *[name for name, default in _OPTIONS.items() if not isinstance(default, bool)])
CHECKBOXES = ("teams", "table_talk", *[name for name, default in _OPTIONS.items() if isinstance(default, bool)])


@dataclass
class FormErrors:
    """The refusals of one submitted form, where the page shows them."""

    fields: dict[str, list[str]] = field(default_factory=dict)  # field name -> sentences
    lines: list[dict[str, Any]] = field(default_factory=list)  # players: {number, text, message}
    general: list[str] = field(default_factory=list)  # about the whole setup

    def add(self, problem: SetupProblem, player_lines: list[str]) -> None:
        if problem.field == "players" and problem.seat is not None and 0 <= problem.seat < len(player_lines):
            self.lines.append({"number": problem.seat + 1, "text": player_lines[problem.seat],
                               "message": problem.refusal.text()})
        elif problem.field in TEXT_FIELDS or problem.field in CHECKBOXES:
            self.fields.setdefault(problem.field, []).append(problem.refusal.text())
        else:
            self.general.append(problem.refusal.text())

    def __bool__(self) -> bool:
        return bool(self.fields or self.lines or self.general)


def _typed() -> dict[str, Any]:
    """What the visitor typed and checked, to fill the form again."""
    typed: dict[str, Any] = {name: request.form.get(name, "") for name in TEXT_FIELDS}
    typed.update({name: bool(request.form.get(name)) for name in CHECKBOXES})
    return typed


def _defaults() -> dict[str, Any]:
    """The form as it opens: GameSettings' defaults."""
    return {"your_name": "", "your_email": "", "players": "", **_settings_fields(DEFAULT_SETTINGS)}


def _settings_fields(settings: GameSettings) -> dict[str, Any]:
    """GameSettings as the form's fields (the options by their engine names)."""
    return {"name": settings.name, "teams": settings.teams, "deadline_hours": f"{settings.deadline_hours:g}",
            "reminders": settings.reminders, "on_timeout": str(settings.on_timeout),
            "table_talk": settings.table_talk, **settings.options.to_json()}


def _read_settings(typed: dict[str, Any]) -> tuple[GameSettings, list[SettingsProblem]]:
    """The form's GameSettings, by the one reader every entry uses."""
    return read_settings(name=typed["name"], teams=typed["teams"],
                         options={key: typed[key] for key in _OPTIONS if typed[key] != ""},
                         deadline_hours=_deadline_hours(typed["deadline_hours"]), reminders=typed["reminders"],
                         on_timeout=typed["on_timeout"], table_talk=typed["table_talk"])


def _deadline_label(hours: int) -> str:
    if hours % 24:
        return i18n.ngettext("%(num)s hour", "%(num)s hours", hours)
    return i18n.ngettext("%(num)s day", "%(num)s days", hours // 24)


def _on_timeout_labels() -> dict[str, str]:
    return {str(choice): _(words.choice) for choice, words in ON_TIMEOUT_WORDS.items()}


def _form_page(form: dict[str, Any], errors: FormErrors | None = None, status: int = 200) -> tuple[str, int]:
    chosen = form.get("deadline_hours", "")
    deadlines = [{"value": str(h), "label": _deadline_label(h), "selected": str(h) == chosen}
                 for h in DEADLINE_CHOICES]
    if chosen and not any(d["selected"] for d in deadlines):
        deadlines = [{**d, "selected": d["value"] == _defaults()["deadline_hours"]} for d in deadlines]
    return render_template("public/new_game.html", form=form, errors=errors or FormErrors(),
                           deadlines=deadlines, on_timeout=_on_timeout_labels(),
                           bots=engine.bots.LEVELS, form_id=proposals.new_form_id()), status


def _player_lines(text: str) -> list[str]:
    """The textarea's non-blank lines, as the domain counts them (SetupProblem.seat)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def _deadline_hours(text: str) -> float:
    """The deadline chosen in the select, as a number (NaN when it is none): the domain's one
    check (`settings.check_deadline_hours`) refuses what is out of bounds, NaN and infinity too."""
    try:
        return float(text.strip()[:32])
    except ValueError:
        return math.nan


@bp.route("/new", methods=["GET"])
def new_game_form() -> Any:
    return _form_page(_defaults())


@bp.route("/new", methods=["POST"])
def propose() -> Any:
    """Set up the game and email its creator a confirmation link; nothing else is sent yet."""
    typed = _typed()
    settings, unread = _read_settings(typed)
    try:
        with session_scope(db()) as db_session:
            proposal = proposals.propose_game(
                db_session, config(), your_name=typed["your_name"], your_email=typed["your_email"],
                players=typed["players"], settings=settings, unread=unread, language=i18n.current(),
                ip=request.remote_addr or "", form_id=request.form.get("form_id", ""))
            sent_to = proposal.creator_email
    except LimitReached as exc:
        return limit_page(exc)
    except SetupError as exc:
        errors = FormErrors()
        for problem in exc.problems:
            errors.add(problem, _player_lines(typed["players"]))
        return _form_page(typed, errors, 422)
    except GameError as exc:
        return _form_page(typed, FormErrors(general=[exc.text()]), 422)
    # The address for the next page: the visitor's own cookie, not the URL (logs, referrers).
    session[SENT_TO] = sent_to
    return redirect("/new/sent", code=303)


@bp.route("/new/sent", methods=["GET"])
def proposal_sent() -> Any:
    return render_template("public/new_sent.html", address=session.get(SENT_TO))
