"""Deadlines between 1 and 720 hours at every entry (issue 23, point 8): the /new form, the admin
form, the command line, the service (`create_game`, an admin's invitations, a visitor's
proposal) all ask `settings.check_deadline_hours`, and refuse with its one sentence before
anything is written. `deadline_hours=1e-9` made bot-only games run flat out on the worker."""
from __future__ import annotations

import math
import re
from typing import Any, Callable

import pytest
from game_helpers import cfg_of, db_of
from sqlmodel import select
from admin_helpers import log_in

from pbem import links
from pbem.db import session_scope
from pbem.games import errors, invitations, proposals, service, settings
from pbem.models import Game, Invitation, OutboxMessage, Proposal
from pbem.games.settings import GameSettings

SENTENCE = "The deadline for each move must be between 1 hour and 30 days (720 hours)."
OUT_OF_BOUNDS = [1e-9, 0, 0.999, -1, 720.001, 721, 24 * 365, math.nan, math.inf, -math.inf]
WITHIN = [1, 1.5, 72, 720]


@pytest.mark.parametrize("hours", OUT_OF_BOUNDS)
def test_the_one_check_refuses_a_deadline_out_of_bounds(hours):
    with pytest.raises(errors.GameError) as refused:
        settings.check_deadline_hours(hours)
    assert refused.value.message == SENTENCE


@pytest.mark.parametrize("hours", [True, "72", None])
def test_the_one_check_refuses_what_is_no_number(hours):
    with pytest.raises(errors.GameError):
        settings.check_deadline_hours(hours)


@pytest.mark.parametrize("hours", WITHIN)
def test_the_one_check_takes_a_deadline_within_bounds(hours):
    assert settings.check_deadline_hours(hours) == float(hours)


# ---------------------------------------------------------------- every entry
def _hidden_fields(page: str) -> dict[str, str]:
    return {m["name"]: m["value"] for m in re.finditer(
        r'<input[^>]*type="hidden"[^>]*name="(?P<name>[^"]+)"[^>]*value="(?P<value>[^"]*)"', page)}


def _written(hours: float) -> str:
    return repr(hours) if math.isfinite(hours) else {math.inf: "inf", -math.inf: "-inf"}.get(hours, "nan")


def _form(app: Any, hours: float) -> str:
    client = app.test_client()
    form = _hidden_fields(client.get("/new").get_data(as_text=True))
    form.update({"your_name": "Ann", "your_email": "ann@example.com", "players": "bot:greedy",
                 "deadline_hours": _written(hours), "reminders": "50,85", "on_timeout": "autoplay"})
    response = client.post("/new", data=form)
    assert response.status_code == 422
    return response.get_data(as_text=True)


def _admin_form(app: Any, hours: float) -> str:
    client = app.test_client()
    assert log_in(client).status_code == 303
    response = client.post("/admin/games/new", data={
        "players-0-name": "Ann", "players-0-email": "ann@example.com", "players-0-kind": "human",
        "players-1-name": "Robo", "players-1-kind": "bot:greedy", "end_settlement": "resolve",
        "deadline_hours": _written(hours), "reminders": "50,90", "on_timeout": "pause"})
    assert response.status_code == 422
    return response.get_data(as_text=True)


def _command_line(app: Any, hours: float) -> str:
    result = app.test_cli_runner().invoke(args=[
        "create-game", "--player", "Ann <ann@example.com>", "--player", "bot:greedy",
        "--deadline-hours", _written(hours)])
    assert result.exit_code != 0
    return result.output


def _refused(call: Callable[[], Any]) -> str:
    with pytest.raises(errors.GameError) as refused:
        call()
    return refused.value.message


def _create_game(app: Any, hours: float) -> str:
    with session_scope(db_of(app)) as session:
        return _refused(lambda: service.create_game(session, cfg_of(app), ["Ann <ann@example.com>", "bot:greedy"],
                                                    GameSettings(deadline_hours=hours)))


def _invite_players(app: Any, hours: float) -> str:
    with session_scope(db_of(app)) as session:
        return _refused(lambda: proposals.invite_players(
            session, cfg_of(app), ["Ann <ann@example.com>", "Bob <bob@example.com>"],
            GameSettings(deadline_hours=hours), organiser_email="boss@example.com"))


def _propose_game(app: Any, hours: float) -> str:
    with session_scope(db_of(app)) as session:
        return _refused(lambda: proposals.propose_game(
            session, cfg_of(app), your_name="Ann", your_email="ann@example.com", players="bot:greedy",
            settings=GameSettings(deadline_hours=hours)))


ENTRIES = {"the /new form": _form, "the admin form": _admin_form, "the command line": _command_line,
           "create_game": _create_game, "invite_players": _invite_players, "propose_game": _propose_game}


@pytest.mark.parametrize("hours", [1e-9, 0, 721, math.nan, math.inf], ids=_written)
@pytest.mark.parametrize("entry", ENTRIES)
def test_every_entry_refuses_a_deadline_out_of_bounds_and_writes_nothing(admin_app, entry, hours):
    said = ENTRIES[entry](admin_app, hours)
    assert SENTENCE in said
    with session_scope(db_of(admin_app)) as session:
        assert [session.exec(select(model)).first() for model in (Game, Proposal, OutboxMessage)] == [None] * 3


@pytest.mark.parametrize("hours", [1, 720])
def test_a_game_takes_a_deadline_at_either_bound(app, hours):
    with session_scope(db_of(app)) as session:
        game = service.create_game(session, cfg_of(app), ["Ann <ann@example.com>", "bot:greedy"],
                                   GameSettings(deadline_hours=hours), seed=1)
        assert game.deadline_hours == hours


# ---------------------------------------------------------------- set up before the bounds
@pytest.mark.parametrize("stored,bounded", [(1e-9, 1.0), (0.5, 1.0), (72.0, 72.0), (24 * 365, 720.0),
                                            (math.nan, 72.0), (math.inf, 72.0)])
def test_a_stored_deadline_is_brought_within_the_bounds(stored, bounded):
    assert settings.bounded_deadline_hours(stored) == bounded


def test_a_proposal_stored_before_the_bounds_still_starts(app):
    cfg = cfg_of(app)
    with session_scope(db_of(app)) as session:
        view = proposals.invite_players(session, cfg, ["Ann <ann@example.com>", "bot:greedy"],
                                        organiser_email="boss@example.com")
        proposal_id = view.proposal.id
    with session_scope(db_of(app)) as session:  # what /new accepted before: a billionth of an hour
        session.get(Proposal, proposal_id).deadline_hours = 1e-9
        row = session.exec(select(Invitation).where(Invitation.proposal_id == proposal_id,
                                                    Invitation.email == "ann@example.com")).one()
        token = links.sign_record(cfg, links.INVITATION_SALT, row.id, row.nonce)
    with session_scope(db_of(app)) as session:
        invitations.accept_invitation(session, cfg, token)
    with session_scope(db_of(app)) as session:
        (game,) = session.exec(select(Game)).all()
        assert game.deadline_hours == 1.0
