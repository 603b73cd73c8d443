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
from pbem.games.setup import ON_TIMEOUT_CHOICES, SetupError, SetupProblem
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.web.limited import limit_page

bp = Blueprint("new_game", __name__)

DEADLINE_CHOICES = (24, 48, 72, 168)  # hours a player has for a move; 72 by default
DEFAULT_DEADLINE = 72
DEFAULT_REMINDERS = "50,85"
SENT_TO = "korsar_new_game_sent_to"  # the session key of the address the confirmation went to
# The form's fields, as typed (text fields) or checked (checkboxes).
TEXT_FIELDS = ("your_name", "your_email", "players", "name", "deadline_hours", "reminders", "on_timeout",
               "end_settlement")
CHECKBOXES = ("teams", "table_talk", "waiting_time")


@dataclass
class FormErrors:
    """The refusals of one submitted form, where the page shows them."""

    fields: dict[str, list[str]] = field(default_factory=dict)  # field name -> sentences
    lines: list[dict[str, Any]] = field(default_factory=list)  # players: {number, text, message}
    general: list[str] = field(default_factory=list)  # about the whole setup

    def add(self, problem: SetupProblem, player_lines: list[str]) -> None:
        if problem.field == "players" and problem.seat is not None and 0 <= problem.seat < len(player_lines):
            self.lines.append({"number": problem.seat + 1, "text": player_lines[problem.seat],
                               "message": problem.message})
        elif problem.field in TEXT_FIELDS or problem.field in CHECKBOXES:
            self.fields.setdefault(problem.field, []).append(problem.message)
        else:
            self.general.append(problem.message)

    def __bool__(self) -> bool:
        return bool(self.fields or self.lines or self.general)


def _typed() -> dict[str, Any]:
    """What the visitor typed and checked, to fill the form again."""
    typed: dict[str, Any] = {name: request.form.get(name, "") for name in TEXT_FIELDS}
    typed.update({name: bool(request.form.get(name)) for name in CHECKBOXES})
    return typed


def _defaults() -> dict[str, Any]:
    return {"your_name": "", "your_email": "", "players": "", "name": "",
            "deadline_hours": str(DEFAULT_DEADLINE), "reminders": DEFAULT_REMINDERS,
            "on_timeout": "autoplay", "teams": False, "table_talk": False, "waiting_time": False,
            "end_settlement": "resolve"}


def _deadline_label(hours: int) -> str:
    if hours % 24:
        return i18n.ngettext("%(num)s hour", "%(num)s hours", hours)
    return i18n.ngettext("%(num)s day", "%(num)s days", hours // 24)


# The form's choices of what happens when a player lets the clock run out (the pages and
# emails of the game say it in sentences: pbem/letters/invitations.py TIMEOUT_SENTENCES).
ON_TIMEOUT_WORDS = {"autoplay": lazy("a bot plays one move for them, and the game goes on"),
                    "pause": lazy("the game pauses until an admin resumes it"),
                    "bot": lazy("a bot takes over their seat for the rest of the game")}


def _on_timeout_labels() -> dict[str, str]:
    return {choice: _(ON_TIMEOUT_WORDS[choice]) for choice in ON_TIMEOUT_CHOICES}


def _form_page(form: dict[str, Any], errors: FormErrors | None = None, status: int = 200) -> tuple[str, int]:
    chosen = form.get("deadline_hours", "")
    deadlines = [{"value": str(h), "label": _deadline_label(h), "selected": str(h) == chosen}
                 for h in DEADLINE_CHOICES]
    if chosen and not any(d["selected"] for d in deadlines):
        deadlines = [{**d, "selected": d["value"] == str(DEFAULT_DEADLINE)} for d in deadlines]
    return render_template("public/new_game.html", form=form, errors=errors or FormErrors(),
                           deadlines=deadlines, on_timeout=_on_timeout_labels(),
                           bots=engine.bots.BOTS, form_id=proposals.new_form_id()), status


def _player_lines(text: str) -> list[str]:
    """The textarea's non-blank lines, as the domain counts them (SetupProblem.seat)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def _deadline_hours(text: str) -> float:
    """The deadline chosen in the select, as a number (NaN when it is none): the domain's one
    check (`setup.check_deadline_hours`) refuses what is out of bounds, NaN and infinity too."""
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
    try:
        with session_scope(db()) as db_session:
            proposal = proposals.propose_game(
                db_session, config(), your_name=typed["your_name"], your_email=typed["your_email"],
                players=typed["players"], teams=typed["teams"], name=typed["name"],
                deadline_hours=_deadline_hours(typed["deadline_hours"]), reminders=typed["reminders"],
                on_timeout=typed["on_timeout"], table_talk=typed["table_talk"],
                waiting_time=typed["waiting_time"], end_settlement=typed["end_settlement"] or "resolve",
                language=i18n.current(), ip=request.remote_addr or "", form_id=request.form.get("form_id", ""))
            sent_to = proposal.creator_email
    except LimitReached as exc:
        return limit_page(exc)
    except SetupError as exc:
        errors = FormErrors()
        for problem in exc.problems:
            errors.add(problem, _player_lines(typed["players"]))
        return _form_page(typed, errors, 422)
    except GameError as exc:
        return _form_page(typed, FormErrors(general=[exc.message]), 422)
    # The address for the next page: the visitor's own cookie, not the URL (logs, referrers).
    session[SENT_TO] = sent_to
    return redirect("/new/sent", code=303)


@bp.route("/new/sent", methods=["GET"])
def proposal_sent() -> Any:
    return render_template("public/new_sent.html", address=session.get(SENT_TO))
