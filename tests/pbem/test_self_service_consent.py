"""Self-service games and consent (issue 16): a visitor's game mails only its creator until
confirmed, each invitee only its invitation until they accept, and nobody at all after "never
email me again", whatever the path. The limits hold at their boundaries."""
from __future__ import annotations

import json
import time
from dataclasses import replace
from datetime import timedelta

import itsdangerous.timed
import pytest
from game_helpers import outbox, with_settings
from sqlmodel import select

from pbem import links
from pbem.db import session_scope
from pbem.games import invitations, lifecycle, my_games, proposals
from pbem.games.never import never_email
from pbem.games.limits import LimitReached
from pbem.games.seated import SeatedGame, lock_seated
from pbem.games.service import create_game, seats_of
from pbem.games.setup import SetupError
from pbem.mail.delivery import deliver_due
from pbem.models import (Game, GameStatus, Invitation, InvitationStatus, OutboxStatus, Proposal,
                         ProposalStatus, Seat, utcnow)

FRIENDS = "Bob <bob@example.com>\nCat <cat@example.com>"


def propose(engine, cfg, players: str = FRIENDS, **kw) -> int:
    with session_scope(engine) as s:
        fields = {"your_name": "Ann", "your_email": "Ann@Example.com", "players": players,
                  "ip": "192.0.2.1", **kw}
        return proposals.propose_game(s, cfg, **with_settings(fields)).id  # type: ignore[return-value]


def proposal(engine, proposal_id: int) -> Proposal:
    with session_scope(engine) as s:
        return s.get(Proposal, proposal_id)  # type: ignore[return-value]


def confirm(engine, cfg, proposal_id: int):
    p = proposal(engine, proposal_id)
    token = links.sign_record(cfg, links.CONFIRM_SALT, proposal_id, p.nonce)
    with session_scope(engine) as s:
        return proposals.confirm_proposal(s, cfg, token)


def invitation_token(engine, cfg, proposal_id: int, email: str) -> str:
    with session_scope(engine) as s:
        row = s.exec(select(Invitation).where(Invitation.proposal_id == proposal_id,
                                              Invitation.email == email)).one()
        return links.sign_record(cfg, links.INVITATION_SALT, row.id, row.nonce)


def answer(engine, cfg, proposal_id: int, email: str, accept: bool = True):
    token = invitation_token(engine, cfg, proposal_id, email)
    with session_scope(engine) as s:
        act = invitations.accept_invitation if accept else invitations.decline_invitation
        return act(s, cfg, token)


def manage_token(engine, cfg, proposal_id: int) -> str:
    return links.sign_record(cfg, links.PROPOSAL_SALT, proposal_id, proposal(engine, proposal_id).nonce)


def kinds_to(engine, address: str) -> list[str]:
    return [row.kind for row in outbox(engine, to_addr=address)]


def never(engine, cfg, address: str) -> None:
    with session_scope(engine) as s:
        never_email(s, cfg, links.sign_address(cfg, links.NEVER_SALT, address))


# ---------------------------------------------------------------- before confirmation
def test_a_new_game_mails_only_its_creator_a_confirmation_link(engine, cfg):
    propose(engine, cfg)
    assert kinds_to(engine, "ann@example.com") == ["confirm_game"]
    assert [row.to_addr for row in outbox(engine)] == ["ann@example.com"]


@pytest.mark.parametrize(("fields", "field"), [
    ({"your_name": ""}, "your_name"),
    ({"your_email": "ann at example"}, "your_email"),
    ({"players": ""}, "players"),
    ({"players": "Bob bob@example.com"}, "players"),
    ({"players": "bot:genius"}, "players"),
    ({"players": "Ann Again <ann@example.com>"}, "players"),
    ({"players": "\n".join(f"P{i} <p{i}@example.com>" for i in range(5))}, "players"),
    ({"teams": True}, "players"),
    ({"deadline_hours": 0}, "deadline_hours"),
    ({"reminders": "fifty"}, "reminders"),
    ({"on_timeout": "explode"}, "on_timeout"),
    ({"end_settlement": "split"}, "end_settlement"),
    ({"waiting_time": True, "players": FRIENDS + "\nDan <dan@example.com>"}, "waiting_time"),
])
def test_a_bad_form_is_refused_on_its_field_and_nothing_is_written(engine, cfg, fields, field):
    with pytest.raises(SetupError) as refused:
        propose(engine, cfg, **fields)
    assert field in {p.field for p in refused.value.problems}
    assert outbox(engine) == []
    with session_scope(engine) as s:
        assert s.exec(select(Proposal)).all() == []


def test_the_form_sent_twice_makes_one_game_and_one_email(engine, cfg):
    form_id = proposals.new_form_id()
    assert propose(engine, cfg, form_id=form_id) == propose(engine, cfg, form_id=form_id)
    assert kinds_to(engine, "ann@example.com") == ["confirm_game"]


def test_the_rules_options_chosen_at_new_are_the_games(engine, cfg):
    view = confirm(engine, cfg, propose(engine, cfg, players="bot:greedy\nbot:random", waiting_time=True,
                                        end_settlement="none"))
    with session_scope(engine) as s:
        game = s.get(Game, view.proposal.game_id)
        assert json.loads(game.options_json) == {"end_settlement": "none", "waiting_time": True}


def test_the_line_of_a_bad_player_is_named(engine, cfg):
    with pytest.raises(SetupError) as refused:
        propose(engine, cfg, players="Bob <bob@example.com>\n\nnot a player")
    (problem,) = refused.value.problems
    assert (problem.field, problem.seat) == ("players", 1)


def test_looking_at_the_confirmation_page_changes_nothing(engine, cfg):
    pid = propose(engine, cfg)
    token = links.sign_record(cfg, links.CONFIRM_SALT, pid, proposal(engine, pid).nonce)
    with session_scope(engine) as s:
        view = proposals.open_confirmation(s, cfg, token)
        assert [i.name for i in view.invitations] == ["Ann", "Bob", "Cat"]
    assert proposal(engine, pid).status == ProposalStatus.UNCONFIRMED
    assert len(outbox(engine)) == 1


def test_confirming_sends_each_invitee_exactly_one_invitation(engine, cfg):
    pid = propose(engine, cfg)
    confirm(engine, cfg, pid)
    assert kinds_to(engine, "bob@example.com") == ["invitation"]
    assert kinds_to(engine, "cat@example.com") == ["invitation"]
    assert proposal(engine, pid).status == ProposalStatus.INVITING


def test_the_confirmation_link_works_once(engine, cfg):
    pid = propose(engine, cfg)
    confirm(engine, cfg, pid)
    with pytest.raises(invitations.GameError) as again:
        confirm(engine, cfg, pid)
    assert again.value.status == 409
    assert kinds_to(engine, "bob@example.com") == ["invitation"]


def test_the_confirmation_link_expires_after_24_hours(engine, cfg, monkeypatch):
    pid = propose(engine, cfg)
    signed_at = int(time.time()) - 24 * 3600 - 1
    monkeypatch.setattr(itsdangerous.timed.TimestampSigner, "get_timestamp", lambda self: signed_at)
    token = links.sign_record(cfg, links.CONFIRM_SALT, pid, proposal(engine, pid).nonce)
    monkeypatch.undo()
    with session_scope(engine) as s, pytest.raises(links.LinkError) as expired:
        proposals.confirm_proposal(s, cfg, token)
    assert expired.value.status == 410
    assert proposal(engine, pid).status == ProposalStatus.UNCONFIRMED


def test_a_game_against_bots_starts_when_its_creator_confirms(engine, cfg):
    pid = propose(engine, cfg, players="bot:greedy\nbot:random")
    view = confirm(engine, cfg, pid)
    assert view.proposal.status == ProposalStatus.STARTED and view.game_url
    with session_scope(engine) as s:
        game = s.get(Game, view.proposal.game_id)
        assert game.status == GameStatus.RUNNING
        assert [seat.name for seat in seats_of(s, game.id)] == ["Ann", "Greedy bot", "Random bot"]


# ---------------------------------------------------------------- invitations
def test_nothing_but_the_invitation_reaches_an_invitee_before_they_accept(engine, cfg):
    pid = propose(engine, cfg)
    confirm(engine, cfg, pid)
    answer(engine, cfg, pid, "bob@example.com")
    assert kinds_to(engine, "cat@example.com") == ["invitation"]
    answer(engine, cfg, pid, "cat@example.com")
    assert kinds_to(engine, "cat@example.com")[0] == "invitation"
    assert "welcome" in kinds_to(engine, "cat@example.com")


def test_the_game_starts_when_every_human_has_accepted(engine, cfg):
    pid = propose(engine, cfg)
    confirm(engine, cfg, pid)
    _row, view = answer(engine, cfg, pid, "bob@example.com")
    assert view.proposal.game_id is None and [i.name for i in view.waiting] == ["Cat"]
    _row, view = answer(engine, cfg, pid, "cat@example.com")
    assert view.proposal.status == ProposalStatus.STARTED and view.game_url
    for address in ("ann@example.com", "bob@example.com", "cat@example.com"):
        assert "welcome" in kinds_to(engine, address)


def test_an_answer_is_given_once(engine, cfg):
    pid = propose(engine, cfg)
    confirm(engine, cfg, pid)
    answer(engine, cfg, pid, "bob@example.com", accept=False)
    with pytest.raises(invitations.GameError) as again:
        answer(engine, cfg, pid, "bob@example.com")
    assert again.value.status == 409


def test_a_decline_tells_the_creator_who_replaces_the_seat_with_a_bot(engine, cfg):
    pid = propose(engine, cfg)
    confirm(engine, cfg, pid)
    answer(engine, cfg, pid, "cat@example.com")
    answer(engine, cfg, pid, "bob@example.com", accept=False)
    assert "invitation_declined" in kinds_to(engine, "ann@example.com")
    assert kinds_to(engine, "bob@example.com") == ["invitation"]
    with session_scope(engine) as s:
        view = proposals.replace_invitee(s, cfg, manage_token(engine, cfg, pid), 1, "bot:greedy")
    assert view.proposal.status == ProposalStatus.STARTED
    with session_scope(engine) as s:
        assert [seat.kind for seat in seats_of(s, view.proposal.game_id)] == ["human", "bot", "human"]
    assert kinds_to(engine, "bob@example.com") == ["invitation"]


def test_a_declined_seat_can_go_to_another_friend_who_is_invited(engine, cfg):
    pid = propose(engine, cfg)
    confirm(engine, cfg, pid)
    answer(engine, cfg, pid, "bob@example.com", accept=False)
    old_token = invitation_token(engine, cfg, pid, "bob@example.com")
    with session_scope(engine) as s:
        proposals.replace_invitee(s, cfg, manage_token(engine, cfg, pid), 1, "Dan <dan@example.com>")
    assert kinds_to(engine, "dan@example.com") == ["invitation"]
    with session_scope(engine) as s, pytest.raises(links.LinkError) as replaced:
        invitations.open_invitation(s, cfg, old_token)
    assert replaced.value.status == 403


def test_only_a_declined_or_silent_seat_can_be_replaced(engine, cfg):
    pid = propose(engine, cfg)
    confirm(engine, cfg, pid)
    with session_scope(engine) as s, pytest.raises(invitations.GameError) as refused:
        proposals.replace_invitee(s, cfg, manage_token(engine, cfg, pid), 1, "bot:greedy")
    assert refused.value.status == 409


def test_a_cancelled_game_tells_those_invited_and_takes_no_answer(engine, cfg):
    pid = propose(engine, cfg)
    confirm(engine, cfg, pid)
    answer(engine, cfg, pid, "bob@example.com")
    with session_scope(engine) as s:
        proposals.cancel_proposal(s, cfg, manage_token(engine, cfg, pid))
    assert kinds_to(engine, "bob@example.com") == ["invitation", "proposal_cancelled"]
    assert kinds_to(engine, "cat@example.com") == ["invitation", "proposal_cancelled"]
    with pytest.raises((invitations.GameError, links.LinkError)):
        answer(engine, cfg, pid, "cat@example.com")


def test_invitations_unanswered_for_7_days_expire_and_the_creator_is_told_once(engine, cfg):
    pid = propose(engine, cfg)
    confirm(engine, cfg, pid)
    answer(engine, cfg, pid, "bob@example.com")
    with session_scope(engine) as s:
        assert invitations.expire_invitations(s, cfg, now=utcnow() + timedelta(days=6, hours=23)) == 0
    with session_scope(engine) as s:
        assert invitations.expire_invitations(s, cfg, now=utcnow() + timedelta(days=7, minutes=1)) == 1
    with session_scope(engine) as s:
        assert invitations.expire_invitations(s, cfg, now=utcnow() + timedelta(days=8)) == 0
    assert kinds_to(engine, "ann@example.com").count("invitations_expired") == 1
    assert kinds_to(engine, "cat@example.com") == ["invitation"]
    with pytest.raises(links.LinkError) as late:
        answer(engine, cfg, pid, "cat@example.com")
    assert late.value.status == 410


def test_an_unconfirmed_game_expires_silently(engine, cfg):
    pid = propose(engine, cfg)
    with session_scope(engine) as s:
        invitations.expire_invitations(s, cfg, now=utcnow() + timedelta(hours=25))
    assert proposal(engine, pid).status == ProposalStatus.EXPIRED
    assert len(outbox(engine)) == 1


# ---------------------------------------------------------------- never email me again
def test_never_email_me_again_declines_and_nothing_more_is_queued(engine, cfg):
    pid = propose(engine, cfg)
    confirm(engine, cfg, pid)
    never(engine, cfg, "bob@example.com")
    with session_scope(engine) as s:
        row = s.exec(select(Invitation).where(Invitation.email == "bob@example.com")).one()
        assert row.status == InvitationStatus.DECLINED
    assert kinds_to(engine, "bob@example.com") == ["invitation"]
    assert "invitation_declined" in kinds_to(engine, "ann@example.com")


def test_a_suppressed_address_is_not_invited_and_only_the_confirmation_step_says_so(engine, cfg):
    never(engine, cfg, "bob@example.com")
    pid = propose(engine, cfg)  # the form says nothing of Bob's choice
    token = links.sign_record(cfg, links.CONFIRM_SALT, pid, proposal(engine, pid).nonce)
    with session_scope(engine) as s:
        assert proposals.open_confirmation(s, cfg, token).unreachable == {1}
    confirm(engine, cfg, pid)
    assert kinds_to(engine, "bob@example.com") == []
    assert kinds_to(engine, "cat@example.com") == ["invitation"]
    with session_scope(engine) as s:
        bob = s.exec(select(Invitation).where(Invitation.email == "bob@example.com")).one()
        assert (bob.status, bob.invited_at) == (InvitationStatus.DECLINED, None)


def test_a_suppressed_address_gets_no_confirmation(engine, cfg, smtp_server):
    never(engine, cfg, "ann@example.com")
    propose(engine, cfg)  # the same answer as for anyone: nothing tells who said never
    deliver_due(engine, replace(cfg, SMTP_HOST=smtp_server.host, SMTP_PORT=smtp_server.port))
    assert smtp_server.to("ann@example.com") == []
    assert {row.status for row in outbox(engine, to_addr="ann@example.com")} == {OutboxStatus.CANCELLED}


def test_the_admin_and_cli_path_refuses_a_suppressed_address(engine, cfg):
    never(engine, cfg, "bob@example.com")
    with session_scope(engine) as s, pytest.raises(SetupError) as refused:
        create_game(s, cfg, ["Ann <ann@example.com>", "Bob <BOB@example.com>"])
    assert "asked never to be emailed" in refused.value.message


def test_an_address_change_to_a_suppressed_address_is_refused(engine, cfg):
    never(engine, cfg, "zed@example.com")
    with session_scope(engine) as s:
        game = create_game(s, cfg, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=1)
    with session_scope(engine) as s, pytest.raises(invitations.GameError) as refused:
        lifecycle.change_seat_email(s, cfg, game.id, 1, "zed@example.com", now=utcnow(), actor="admin")
    assert "asked never to be emailed" in refused.value.message


def test_a_player_who_says_never_leaves_their_games_and_their_queued_mail_is_cancelled(engine, cfg, smtp_server):
    with session_scope(engine) as s:
        game = create_game(s, cfg, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=1)
    queued = len(outbox(engine, to_addr="bob@example.com"))
    assert queued
    never(engine, cfg, "bob@example.com")
    deliver_due(engine, replace(cfg, SMTP_HOST=smtp_server.host, SMTP_PORT=smtp_server.port))
    assert smtp_server.to("bob@example.com") == []
    assert {row.status for row in outbox(engine, to_addr="bob@example.com")} == {OutboxStatus.CANCELLED}
    with session_scope(engine) as s:
        bob = s.exec(select(Seat).where(Seat.game_id == game.id, Seat.position == 1)).one()
        assert bob.left_game and bob.handed_to_bot


# ---------------------------------------------------------------- limits
def test_confirmation_links_per_address_stop_at_the_limit_and_say_when(engine, cfg):
    for n in range(cfg.LIMIT_LINKS_PER_ADDRESS_HOUR):
        propose(engine, cfg, players=f"bot:greedy\nbot:random\nP{n} <p{n}@example.com>")
    with pytest.raises(LimitReached) as limited:
        propose(engine, cfg)
    assert limited.value.status == 429
    assert utcnow() + timedelta(minutes=59) < limited.value.retry_at <= utcnow() + timedelta(hours=1)


def test_links_per_ip_stop_at_the_limit(engine, cfg):
    cfg.LIMIT_LINKS_PER_IP_HOUR = 2
    propose(engine, cfg, your_email="a1@example.com")
    propose(engine, cfg, your_email="a2@example.com")
    with pytest.raises(LimitReached):
        propose(engine, cfg, your_email="a3@example.com")


def test_games_per_creator_per_day_count_at_confirmation(engine, cfg):
    cfg.LIMIT_GAMES_PER_CREATOR_DAY = 1
    first, second = propose(engine, cfg, players="bot:greedy"), propose(engine, cfg, players="bot:random")
    confirm(engine, cfg, first)
    with pytest.raises(LimitReached):
        confirm(engine, cfg, second)
    assert proposal(engine, second).status == ProposalStatus.UNCONFIRMED


def test_invitations_per_address_per_day(engine, cfg):
    cfg.LIMIT_INVITATIONS_PER_ADDRESS_DAY = 1
    confirm(engine, cfg, propose(engine, cfg, players="Bob <bob@example.com>"))
    with pytest.raises(LimitReached):
        confirm(engine, cfg, propose(engine, cfg, players="Bob <bob@example.com>\nbot:greedy"))
    assert kinds_to(engine, "bob@example.com") == ["invitation"]


def test_invitations_per_creator_per_day(engine, cfg):
    cfg.LIMIT_INVITATIONS_PER_CREATOR_DAY = 2
    confirm(engine, cfg, propose(engine, cfg))
    with pytest.raises(LimitReached):
        confirm(engine, cfg, propose(engine, cfg, players="Dan <dan@example.com>"))


# ---------------------------------------------------------------- my games
def test_a_my_games_link_goes_only_to_an_address_that_plays(engine, cfg, smtp_server):
    with session_scope(engine) as s:
        create_game(s, cfg, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=1)
    with session_scope(engine) as s:
        assert my_games.request_my_games_link(s, cfg, "nobody@example.com", ip="192.0.2.9") is None
        assert my_games.request_my_games_link(s, cfg, "BOB@example.com", ip="192.0.2.9") is None
    deliver_due(engine, replace(cfg, SMTP_HOST=smtp_server.host, SMTP_PORT=smtp_server.port))
    assert [m["Subject"] for m in smtp_server.to("bob@example.com")][-1] == "[Korsar] Your link to your games"
    assert smtp_server.to("nobody@example.com") == []


def test_my_games_lists_running_waiting_and_finished(engine, cfg):
    with session_scope(engine) as s:
        create_game(s, cfg, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=1)
    confirm(engine, cfg, propose(engine, cfg))
    with session_scope(engine) as s:
        mine = my_games.games_of(s, cfg, "ann@example.com")
        bobs = my_games.games_of(s, cfg, "bob@example.com")
    assert len(mine.running) == 1 and len(mine.waiting) == 1 and mine.waiting[0].creator
    assert len(bobs.waiting) == 1 and not bobs.waiting[0].creator


def test_address_preferences_apply_to_every_running_seat_and_the_next_games(engine, cfg):
    with session_scope(engine) as s:
        game = create_game(s, cfg, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=1)
    token = links.sign_address(cfg, links.MY_GAMES_SALT, "ann@example.com")
    with session_scope(engine) as s:
        my_games.set_address_preferences(s, cfg, token, timezone="Europe/Paris", reminders=False,
                                         digest=True, play_forced=False)
    with session_scope(engine) as s:
        ann = s.exec(select(Seat).where(Seat.game_id == game.id, Seat.position == 0)).one()
        assert (ann.timezone, ann.unsubscribed, ann.digest, ann.play_forced) == ("Europe/Paris", True, True, False)
        later = create_game(s, cfg, ["Ann <ann@example.com>", "Cat <cat@example.com>"], seed=2)
        ann2 = s.exec(select(Seat).where(Seat.game_id == later.id, Seat.position == 0)).one()
        assert (ann2.timezone, ann2.unsubscribed, ann2.digest, ann2.play_forced) == ("Europe/Paris", True, True, False)


def test_address_preferences_lock_each_game_of_the_address_once(engine, cfg):
    from sqlalchemy import event

    with session_scope(engine) as s:
        for seed in (1, 2):
            create_game(s, cfg, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=seed)
    token = links.sign_address(cfg, links.MY_GAMES_SALT, "ann@example.com")
    statements: list[str] = []

    def record(conn, cursor, statement, *args):  # type: ignore[no-untyped-def]
        statements.append(" ".join(statement.split()).upper())

    event.listen(engine, "before_cursor_execute", record)
    try:
        with session_scope(engine) as s:
            my_games.set_address_preferences(s, cfg, token, timezone="Europe/Paris", reminders=False,
                                             digest=True, play_forced=False)
    finally:
        event.remove(engine, "before_cursor_execute", record)
    # The lock of a game with its seats (on PostgreSQL FOR UPDATE): once per game, not per preference.
    assert len([q for q in statements if q.startswith("SELECT") and " FROM GAME JOIN SEAT " in q]) == 2


def test_an_unknown_time_zone_is_refused(engine, cfg):
    token = links.sign_address(cfg, links.MY_GAMES_SALT, "ann@example.com")
    with session_scope(engine) as s, pytest.raises(invitations.GameError) as refused:
        my_games.set_address_preferences(s, cfg, token, timezone="Mars/Olympus", reminders=True,
                                         digest=False, play_forced=True)
    assert refused.value.status == 422


# ---------------------------------------------------------------- leave and rematch
def test_a_player_who_leaves_is_played_by_a_bot_and_gets_no_more_game_mail(engine, cfg):
    with session_scope(engine) as s:
        game = create_game(s, cfg, ["Ann <ann@example.com>", "Bob <bob@example.com>", "Cat <cat@example.com>"],
                           seed=1)
        bob = s.exec(select(Seat).where(Seat.game_id == game.id, Seat.position == 1)).one()
        token = links.SeatToken(game.id, 1, bob.link_nonce)
    before = len(outbox(engine, to_addr="bob@example.com"))
    with session_scope(engine) as s:
        lifecycle.leave_game(s, cfg, _locked(s, token), now=utcnow())
    assert len(outbox(engine, to_addr="bob@example.com")) == before
    with session_scope(engine) as s, pytest.raises(invitations.GameError) as again:
        lifecycle.leave_game(s, cfg, _locked(s, token), now=utcnow())
    assert again.value.status == 409


def _locked(s, token: links.SeatToken) -> SeatedGame:
    """The token's seat as the seat pages' entry hands it down: its game locked, its link current."""
    seated = lock_seated(s, token.game_id, token.position)
    assert seated.seat.link_nonce == token.nonce
    return seated


def _rematch(s, cfg, token: links.SeatToken):  # type: ignore[no-untyped-def]
    seated = _locked(s, token)
    return proposals.rematch(s, cfg, seated)


def _finished_game(engine, cfg) -> tuple[int, links.SeatToken]:
    with session_scope(engine) as s:
        game = create_game(s, cfg, ["Ann <ann@example.com>", "Bob <bob@example.com>", "bot:greedy"], seed=1)
        game.status = GameStatus.FINISHED
        s.add(game)
        ann = s.exec(select(Seat).where(Seat.game_id == game.id, Seat.position == 0)).one()
        return game.id, links.SeatToken(game.id, 0, ann.link_nonce)


def test_a_rematch_invites_the_other_humans_again_and_keeps_the_bots(engine, cfg):
    game_id, token = _finished_game(engine, cfg)
    before = kinds_to(engine, "bob@example.com")
    with session_scope(engine) as s:
        view = _rematch(s, cfg, token)
    assert view.proposal.rematch_of == game_id and view.proposal.status == ProposalStatus.INVITING
    assert [(i.name, i.status) for i in view.invitations] == [
        ("Ann", "accepted"), ("Bob", "invited"), ("Greedy bot", "accepted")]
    assert kinds_to(engine, "bob@example.com") == before + ["invitation"]


def test_a_rematch_waits_for_the_game_to_end(engine, cfg):
    with session_scope(engine) as s:
        game = create_game(s, cfg, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=1)
        ann = s.exec(select(Seat).where(Seat.game_id == game.id, Seat.position == 0)).one()
        token = links.SeatToken(game.id, 0, ann.link_nonce)
    with session_scope(engine) as s, pytest.raises(invitations.GameError) as refused:
        _rematch(s, cfg, token)
    assert refused.value.status == 409


def test_a_rematch_refuses_a_player_who_said_never(engine, cfg):
    _game_id, token = _finished_game(engine, cfg)
    never(engine, cfg, "bob@example.com")
    with session_scope(engine) as s, pytest.raises(invitations.GameError):
        _rematch(s, cfg, token)


# ---------------------------------------------------------------- an admin's game, players asked first
def test_an_admins_game_invites_its_players_and_tells_the_admin_of_a_decline(engine, cfg):
    with session_scope(engine) as s:
        view = proposals.invite_players(s, cfg, ["Bob <bob@example.com>", "Cat <Cat@example.com>", "bot:greedy"],
                                        organiser_email="Boss@korsar.test")
        pid = view.proposal.id
    assert kinds_to(engine, "bob@example.com") == ["invitation"]
    assert kinds_to(engine, "cat@example.com") == ["invitation"]
    answer(engine, cfg, pid, "bob@example.com", accept=False)
    assert kinds_to(engine, "boss@korsar.test") == ["invitation_declined"]
    with session_scope(engine) as s:
        view = proposals.replace_invitee(s, cfg, manage_token(engine, cfg, pid), 0, "bot:random")
    _row, view = answer(engine, cfg, pid, "cat@example.com")
    assert view.proposal.status == ProposalStatus.STARTED
    with session_scope(engine) as s:
        assert [seat.kind for seat in seats_of(s, view.proposal.game_id)] == ["bot", "human", "bot"]


def test_an_admins_game_refuses_a_suppressed_address(engine, cfg):
    never(engine, cfg, "bob@example.com")
    with session_scope(engine) as s, pytest.raises(SetupError) as refused:
        proposals.invite_players(s, cfg, ["Bob <bob@example.com>", "bot:greedy"], organiser_email="boss@korsar.test")
    assert "asked never to be emailed" in refused.value.message


def test_confirmation_links_do_not_use_up_the_my_games_links(engine, cfg):
    cfg.LIMIT_LINKS_PER_ADDRESS_HOUR = 1
    propose(engine, cfg)
    with session_scope(engine) as s:
        my_games.request_my_games_link(s, cfg, "ann@example.com", ip="")
    with session_scope(engine) as s, pytest.raises(LimitReached):
        my_games.request_my_games_link(s, cfg, "ann@example.com", ip="")
