"""Admin games pages: the list (filters, sorting, pages, fixed query count), the create form
with inline errors, the detail page (every hand) and every action, each one audited."""
from __future__ import annotations

import json
import re
from datetime import timedelta

import engine
import pytest
from sqlalchemy import event
from sqlmodel import Session, select
from admin_helpers import (ADMIN_EMAIL, audit_actions, bot_game, db_of, game_row, new_game, outbox, seats,
                                text_of)

from pbem.db import session_scope
from pbem.games.records import moves_of, replay_record
from pbem.store import load_state
from pbem.models import Game, GameStatus, utcnow
from pbem.present import colours
from pbem.present.phrases import card

# ---------------------------------------------------------------- list
def link(game_id: int) -> str:
    return f'href="/admin/games/{game_id}"'



def test_games_list_shows_status_players_whose_turn_waiting_and_deadline(admin_client, admin_app):
    game_id = new_game(admin_app, now=utcnow() - timedelta(hours=5))
    page = text_of(admin_client.get("/admin/"))
    assert f"#{game_id}" in page
    assert "Ann" in page and "Bob" in page and "Cy" in page
    assert "running" in page
    assert "5 h 0 min" in page  # Ann has been waiting since the game started
    deadline = game_row(admin_app, game_id).deadline_at
    assert f"{deadline:%Y-%m-%d %H:%M}" in page


def test_games_list_filters_by_status(admin_client, admin_app):
    running = new_game(admin_app)
    paused = new_game(admin_app)
    admin_client.post(f"/admin/games/{paused}/pause")
    page = text_of(admin_client.get("/admin/?status=paused"))
    assert link(paused) in page and link(running) not in page
    page = text_of(admin_client.get("/admin/?status=running"))
    assert link(running) in page and link(paused) not in page


def test_games_list_sorts_and_pages_on_the_server(admin_client, admin_app):
    t0 = utcnow() - timedelta(days=3)
    ids = [bot_game(admin_app, seed=i, now=t0 + timedelta(minutes=i)) for i in range(27)]
    first = text_of(admin_client.get("/admin/?sort=created&dir=asc"))
    assert link(ids[0]) in first and link(ids[24]) in first and link(ids[25]) not in first
    assert "Page 1 of 2" in first
    second = text_of(admin_client.get("/admin/?sort=created&dir=asc&page=2"))
    assert link(ids[25]) in second and link(ids[26]) in second and link(ids[0]) not in second
    newest_first = text_of(admin_client.get("/admin/?sort=created&dir=desc"))
    assert newest_first.index(link(ids[26])) < newest_first.index(link(ids[20]))


@pytest.mark.parametrize("query", ["?sort=nonsense&dir=up", "?page=abc", "?page=999", "?status=bogus"])
def test_games_list_tolerates_odd_parameters(admin_client, admin_app, query):
    bot_game(admin_app)
    assert admin_client.get("/admin/" + query).status_code == 200


def count_queries(app, fn) -> int:
    statements = []
    eng = db_of(app)

    def listener(conn, cursor, statement, *args):  # type: ignore[no-untyped-def]
        if statement.lstrip().upper().startswith("SELECT"):
            statements.append(statement)

    event.listen(eng, "before_cursor_execute", listener)
    try:
        fn()
    finally:
        event.remove(eng, "before_cursor_execute", listener)
    return len(statements)


def test_games_list_query_count_does_not_grow_with_the_rows(admin_client, admin_app):
    bot_game(admin_app)
    few = count_queries(admin_app, lambda: admin_client.get("/admin/"))
    for i in range(12):
        bot_game(admin_app, seed=i)
    many = count_queries(admin_app, lambda: admin_client.get("/admin/"))
    assert many == few


# ---------------------------------------------------------------- create
GOOD_FORM = {
    "name": "Friday table",
    "players-0-name": "Ann", "players-0-email": "ann@example.com", "players-0-kind": "human",
    "players-1-name": "Bob", "players-1-email": "bob@example.com", "players-1-kind": "human",
    "players-2-name": "Robo", "players-2-email": "", "players-2-kind": "bot:greedy",
    "end_settlement": "resolve", "deadline_hours": "48", "reminders": "50,90",
    "on_timeout": "pause",
}


def test_create_game_queues_the_invitations_and_opens_the_game_page(admin_client, admin_app):
    response = admin_client.post("/admin/games/new", data=GOOD_FORM)
    assert response.status_code == 303
    game_id = int(response.headers["Location"].rsplit("/", 1)[1])
    g = game_row(admin_app, game_id)
    assert (g.name, g.seed, g.deadline_hours, g.reminders, g.on_timeout) == ("Friday table", None, 48, "50,90", "pause")
    assert [(s.name, s.email, s.kind) for s in seats(admin_app, game_id)] == [
        ("Ann", "ann@example.com", "human"), ("Bob", "bob@example.com", "human"), ("Robo", None, "bot")]
    kinds = sorted(m.kind for m in outbox(admin_app, game_id))
    # The deal is random: a first turn with a single move (a draw) is played for its seat at once,
    # and then the turn email goes to the next person, or to nobody if the bot is next.
    with Session(db_of(admin_app)) as s:
        forced = [m for m in moves_of(s, game_id) if m.source == "forced"]
    assert kinds.count("welcome") == 2 and ("turn" in kinds or forced)
    assert "create_game" in audit_actions(admin_app)
    page = text_of(admin_client.get(response.headers["Location"]))
    assert "Game" in page and "created" in page


def test_create_game_asking_the_players_first_sends_only_invitations(admin_client, admin_app):
    response = admin_client.post("/admin/games/new", data={**GOOD_FORM, "invite_first": "y"})
    assert response.status_code == 303 and response.headers["Location"].endswith("/admin/")
    rows = outbox(admin_app)
    assert sorted((m.to_addr, m.kind) for m in rows) == [("ann@example.com", "invitation"),
                                                         ("bob@example.com", "invitation")]
    assert "Korsar by mail invites you" in rows[0].text_body  # who invites: the service
    assert ADMIN_EMAIL not in rows[0].text_body + rows[0].html_body  # not the admin's address
    with Session(db_of(admin_app)) as s:
        assert s.exec(select(Game)).all() == []
    assert "invite_players" in audit_actions(admin_app)
    assert "the game starts when all have accepted" in text_of(admin_client.get("/admin/"))


def test_the_create_form_asks_the_players_first_by_default(admin_client):
    (box,) = re.findall(r"<input[^>]*id=\"invite_first\"[^>]*>", text_of(admin_client.get("/admin/games/new")))
    assert "checked" in box


@pytest.mark.parametrize("names", [["Ann", "Bob", "Cy", "Di"], ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"]])
def test_create_game_with_a_random_deal_and_team_play(admin_client, admin_app, names):
    form = {"players-%d-name" % i: n for i, n in enumerate(names)}
    form.update({"players-%d-email" % i: f"{n.lower()}@example.com" for i, n in enumerate(names)})
    form.update({"teams": "y", "deadline_hours": "72", "reminders": "", "on_timeout": "autoplay",
                 "end_settlement": "none"})
    response = admin_client.post("/admin/games/new", data=form)
    assert response.status_code == 303, text_of(response)
    g = game_row(admin_app, int(response.headers["Location"].rsplit("/", 1)[1]))
    assert g.teams and g.seed is None and len(json.loads(g.deck_json)) == 78
    assert [s.team for s in seats(admin_app, g.id)] == [i // 2 for i in range(len(names))]


def test_a_bot_without_a_name_is_named_after_its_kind(admin_client, admin_app):
    response = admin_client.post("/admin/games/new", data={**GOOD_FORM, "players-2-name": "",
                                                           "players-3-kind": "bot:random"})
    assert response.status_code == 303, text_of(response)
    game_id = int(response.headers["Location"].rsplit("/", 1)[1])
    assert [s.name for s in seats(admin_app, game_id)] == ["Ann", "Bob", "Greedy bot", "Random bot"]


@pytest.mark.parametrize("seat6,opened", [("", False), ("Flo", True)])
def test_seats_6_to_8_are_folded_away_unless_used(admin_client, seat6, opened):
    response = admin_client.post("/admin/games/new", data={**GOOD_FORM, "players-5-name": seat6, "teams": "y"})
    assert ('class="more-seats" open' in text_of(response)) is opened


@pytest.mark.parametrize("change,message", [
    ({"players-1-email": ""}, "A person needs an email address"),
    ({"players-1-email": "bob at example"}, "not an email address"),
    ({"players-1-name": "", "players-1-email": "", "players-2-name": "", "players-2-kind": "human"},
     "2 to 5 players alone (or 4, 6 or 8 in teams), not by 1."),
    ({"teams": "y"}, "Team play needs 4, 6 or 8 players, not 3."),
    ({"players-1-name": ""}, "Give this player a name."),
    ({"players-1-email": "ann@example.com"}, "Two seats have the same email address."),
    ({"waiting_time": "y", "players-3-name": "Dee", "players-3-email": "dee@example.com"},
     "only for games of 2 or 3 players alone"),
    ({"deadline_hours": "0"}, "The deadline for each move must be between 1 hour and 30 days (720 hours)."),
    ({"deadline_hours": "1e-9"}, "The deadline for each move must be between 1 hour and 30 days (720 hours)."),
    ({"deadline_hours": "721"}, "The deadline for each move must be between 1 hour and 30 days (720 hours)."),
    ({"deadline_hours": "soon"}, "Not a valid float value."),
    ({"reminders": "half"}, "percentages of the deadline"),
    ({"reminders": "50,120"}, "between 0 and 100 percent"),
    ({"players-2-kind": "bot:nonsense"}, "Not a valid choice."),
])
def test_create_game_shows_inline_errors_and_keeps_what_was_typed(admin_client, admin_app, change, message):
    response = admin_client.post("/admin/games/new", data={**GOOD_FORM, **change})
    page = text_of(response)
    assert response.status_code == 422
    assert message in page
    assert 'value="Friday table"' in page and 'value="ann@example.com"' in page
    assert game_row(admin_app, 1) is None
    assert outbox(admin_app) == []


def test_create_game_refused_by_the_service_shows_its_reason(admin_client, admin_app):
    form = {**GOOD_FORM, "players-1-name": "Ann", "players-1-email": "ann2@example.com"}
    response = admin_client.post("/admin/games/new", data=form)
    assert response.status_code == 422
    assert "Two players are called" in text_of(response)


def test_the_admin_form_no_longer_accepts_a_seed(admin_client, admin_app):
    """A seed an admin types is a deal anyone who learns it can replay: the form has none."""
    assert 'name="seed"' not in text_of(admin_client.get("/admin/games/new"))
    response = admin_client.post("/admin/games/new", data={**GOOD_FORM, "seed": "42"})
    assert response.status_code == 303
    g = game_row(admin_app, int(response.headers["Location"].rsplit("/", 1)[1]))
    assert g.seed is None and json.loads(g.deck_json) != engine.new_game(["Ann", "Bob", "Robo"], seed=42).deck


def test_create_form_page_renders_eight_player_rows(admin_client):
    page = text_of(admin_client.get("/admin/games/new"))
    assert page.count("<legend>Seat ") == 8
    assert 'value="50,85"' in page


# ---------------------------------------------------------------- detail
def test_game_detail_shows_every_hand_the_table_the_log_and_the_emails(admin_client, admin_app):
    game_id = new_game(admin_app)
    with session_scope(db_of(admin_app)) as s:
        from pbem.games.service import apply_game_move

        g = s.get(Game, game_id)
        state = load_state(g)
        merchant = next(m for m in engine.legal_moves(state) if m["action"] == "play")
        apply_game_move(s, admin_app.config["KORSAR"], game_id, 0, merchant)
    view = engine.admin_view(load_state(game_row(admin_app, game_id)))
    page = text_of(admin_client.get(f"/admin/games/{game_id}"))
    for hand in view["hands"]:
        for code in hand:
            assert engine.card_name(code) in page
    assert f"{view['draw_pile']} cards" in page
    assert "Ship 1" in page
    assert "Ann played a merchant ship: ship 1" in page
    for m in outbox(admin_app, game_id):
        assert m.subject in page or m.subject.replace("'", "&#39;") in page
    assert "pending" in page


def test_the_admins_chips_carry_the_colour_marks_and_captain_outline_of_the_players_chips(admin_client, admin_app):
    game_id = new_game(admin_app)
    view = engine.admin_view(load_state(game_row(admin_app, game_id)))
    page = admin_client.get(f"/admin/games/{game_id}").get_data(as_text=True)
    for code in {code for hand in view["hands"] for code in hand}:
        c = card(code)
        outline = " captain" if c.captain else ""
        mark = f'<span class="mark" aria-hidden="true">{colours.MARK[c.colour]}</span> ' if c.mark else ""
        assert f'<span class="card card-{c.colour}{outline}" title="{code}">{mark}{c.name}</span>' in page, code


def test_game_detail_of_a_missing_game_is_404(admin_client):
    assert admin_client.get("/admin/games/999").status_code == 404


def test_a_running_games_detail_page_and_audit_log_show_no_seed(admin_client, admin_app):
    response = admin_client.post("/admin/games/new", data=GOOD_FORM)
    created = int(response.headers["Location"].rsplit("/", 1)[1])
    seeded = new_game(admin_app, seed=1234567)  # a test deal: its seed gives away every hand
    for game_id in (created, seeded):
        page = text_of(admin_client.get(f"/admin/games/{game_id}"))
        assert "1234567" not in page and "Seed" not in page and "seed None" not in page
        assert "shown when the game is over" in page and "export.json" not in page
    audit = text_of(admin_client.get("/admin/audit"))
    assert "Friday table (3 players)" in audit and "seed" not in audit.lower()
    admin_client.post(f"/admin/games/{seeded}/abort")
    assert "seed 1234567" in text_of(admin_client.get(f"/admin/games/{seeded}"))


def test_export_of_a_game_still_being_played_is_refused_with_409(admin_client, admin_app):
    game_id = new_game(admin_app)
    response = admin_client.get(f"/admin/games/{game_id}/export.json")
    assert response.status_code == 409 and response.mimetype != "application/json"
    assert "still being played" in text_of(response)


def test_export_is_json_the_engine_replays(admin_client, admin_app):
    from pbem.games.bots import play_due_bots

    game_id = bot_game(admin_app)
    play_due_bots(db_of(admin_app), admin_app.config["KORSAR"], now=utcnow() + timedelta(minutes=1))
    assert game_row(admin_app, game_id).status == GameStatus.FINISHED
    assert "export.json" in text_of(admin_client.get(f"/admin/games/{game_id}"))
    response = admin_client.get(f"/admin/games/{game_id}/export.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert "attachment" in response.headers["Content-Disposition"]
    record = json.loads(response.get_data())
    assert record["players"] == ["Robo", "Dumb"]
    assert record["deck"] == json.loads(game_row(admin_app, game_id).deck_json)
    assert engine.state_to_json(replay_record(record)) == engine.state_to_json(load_state(game_row(admin_app, game_id)))


def test_export_of_a_missing_game_is_404(admin_client):
    assert admin_client.get("/admin/games/999/export.json").status_code == 404


# ---------------------------------------------------------------- actions
def test_pause_then_resume(admin_client, admin_app):
    game_id = new_game(admin_app)
    assert admin_client.post(f"/admin/games/{game_id}/pause").status_code == 303
    assert game_row(admin_app, game_id).status == GameStatus.PAUSED
    assert "Resume" in text_of(admin_client.get(f"/admin/games/{game_id}"))
    assert admin_client.post(f"/admin/games/{game_id}/resume").status_code == 303
    assert game_row(admin_app, game_id).status == GameStatus.RUNNING
    assert audit_actions(admin_app)[-2:] == ["pause", "resume"]


def test_a_refused_action_says_why_with_its_status_and_changes_nothing(admin_client, admin_app):
    game_id = new_game(admin_app)
    before = len(outbox(admin_app, game_id))
    response = admin_client.post(f"/admin/games/{game_id}/resume")
    assert response.status_code == 409
    assert "Only a paused game can be resumed." in text_of(response)
    assert game_row(admin_app, game_id).status == GameStatus.RUNNING
    assert len(outbox(admin_app, game_id)) == before
    assert "resume" not in audit_actions(admin_app)


def test_actions_on_a_missing_game_are_404(admin_client):
    assert admin_client.post("/admin/games/999/pause").status_code == 404


def test_extend_deadline(admin_client, admin_app):
    game_id = new_game(admin_app)
    before = game_row(admin_app, game_id).deadline_at
    response = admin_client.post(f"/admin/games/{game_id}/extend", data={"hours": "24"})
    assert response.status_code == 303
    assert game_row(admin_app, game_id).deadline_at == before + timedelta(hours=24)
    assert "extend_deadline" in audit_actions(admin_app)


@pytest.mark.parametrize("hours,message", [("", "How many hours?"), ("0", "Between 1 and 720"), ("x", "Not a valid")])
def test_extend_deadline_refuses_bad_hours(admin_client, admin_app, hours, message):
    game_id = new_game(admin_app)
    before = game_row(admin_app, game_id).deadline_at
    response = admin_client.post(f"/admin/games/{game_id}/extend", data={"hours": hours})
    assert response.status_code == 422
    assert message in text_of(response)
    assert game_row(admin_app, game_id).deadline_at == before


@pytest.mark.parametrize("action,kind", [("resend", "turn"), ("nudge", "reminder")])
def test_resend_and_nudge_queue_an_email_to_the_player_to_move(admin_client, admin_app, action, kind):
    game_id = new_game(admin_app)
    before = outbox(admin_app, game_id)
    assert admin_client.post(f"/admin/games/{game_id}/{action}").status_code == 303
    new = [m for m in outbox(admin_app, game_id) if m.id not in {b.id for b in before}]
    assert [(m.kind, m.to_addr) for m in new] == [(kind, "ann@example.com")]


def test_change_email_invalidates_old_links_and_mails_the_new_address(admin_client, admin_app):
    game_id = new_game(admin_app)
    old_nonce = seats(admin_app, game_id)[0].link_nonce
    response = admin_client.post(f"/admin/games/{game_id}/seats/0/email", data={"email": "ann@new.example"})
    assert response.status_code == 303
    seat = seats(admin_app, game_id)[0]
    assert seat.email == "ann@new.example" and seat.link_nonce != old_nonce
    assert any(m.to_addr == "ann@new.example" for m in outbox(admin_app, game_id))
    assert "change_email" in audit_actions(admin_app)


def test_change_email_refuses_a_bad_address_and_keeps_it_in_the_form(admin_client, admin_app):
    game_id = new_game(admin_app)
    response = admin_client.post(f"/admin/games/{game_id}/seats/1/email", data={"email": "bob@@nowhere"})
    assert response.status_code == 422
    page = text_of(response)
    assert "not an email address" in page and 'value="bob@@nowhere"' in page
    assert seats(admin_app, game_id)[1].email == "bob@example.com"


def test_hand_a_seat_to_the_bot_and_back(admin_client, admin_app):
    game_id = new_game(admin_app)
    assert admin_client.post(f"/admin/games/{game_id}/seats/1/bot", data={"bot": "random"}).status_code == 303
    seat = seats(admin_app, game_id)[1]
    assert seat.handed_to_bot and seat.bot == "random"
    assert "played by the random bot" in text_of(admin_client.get(f"/admin/games/{game_id}"))
    assert admin_client.post(f"/admin/games/{game_id}/seats/1/human").status_code == 303
    assert not seats(admin_app, game_id)[1].handed_to_bot
    assert audit_actions(admin_app)[-2:] == ["seat_to_bot", "seat_back"]


def test_abort_tells_every_player_and_ends_the_game(admin_client, admin_app):
    game_id = new_game(admin_app)
    response = admin_client.post(f"/admin/games/{game_id}/abort", data={"reason": "Bob moved away"})
    assert response.status_code == 303
    assert game_row(admin_app, game_id).status == GameStatus.ABORTED
    page = text_of(admin_client.get(f"/admin/games/{game_id}"))
    assert "aborted" in page and "Abort game" not in page
    assert admin_client.post(f"/admin/games/{game_id}/abort").status_code == 410


def test_get_pages_never_change_anything(admin_client, admin_app):
    game_id = new_game(admin_app)
    before = (game_row(admin_app, game_id).model_dump(), [m.model_dump() for m in outbox(admin_app)],
              audit_actions(admin_app))
    for url in ["/admin/", f"/admin/games/{game_id}", f"/admin/games/{game_id}/export.json",
                "/admin/games/new", "/admin/outbox", "/admin/stats", "/admin/audit",
                f"/admin/outbox/{outbox(admin_app)[0].id}", f"/admin/games/{game_id}/pause"]:
        admin_client.get(url)
    after = (game_row(admin_app, game_id).model_dump(), [m.model_dump() for m in outbox(admin_app)],
             audit_actions(admin_app))
    assert after == before


def test_detail_of_a_finished_team_game_shows_teams_scores_and_winners(admin_client, admin_app):
    from pbem.games.bots import play_due_bots
    from pbem.games.setup import SeatSpec

    bots = [SeatSpec(f"Bot {i}", kind="bot", bot="greedy") for i in range(4)]
    game_id = new_game(admin_app, bots, teams=True)
    play_due_bots(db_of(admin_app), admin_app.config["KORSAR"], now=utcnow() + timedelta(minutes=1))
    assert game_row(admin_app, game_id).status == GameStatus.FINISHED
    page = text_of(admin_client.get(f"/admin/games/{game_id}"))
    assert "Team 1: Bot 0 &amp; Bot 1" in page and "Team 2: Bot 2 &amp; Bot 3" in page
    assert "The game is over. Final gold:" in page
    assert "★" in page  # the winning team (or both, on a tie)
    assert "Actions" not in page  # nothing left to do but export


def test_a_missing_game_gets_an_error_page_in_the_dashboard_layout(admin_client):
    response = admin_client.get("/admin/games/999")
    page = text_of(response)
    assert response.status_code == 404
    assert "There is no game 999." in page and "Back to the games" in page


@pytest.mark.parametrize("setup,action,data,status,message", [
    ("pause", "nudge", {}, 409, "This game is paused"),
    ("pause", "resend", {}, 409, "This game is paused"),
    ("pause", "extend", {"hours": "5"}, 409, "This game is paused"),
    ("pause", "pause", {}, 409, "This game is paused"),
    ("abort", "resume", {}, 409, "Only a paused game can be resumed."),
    ("abort", "seats/0/email", {"email": "x@example.com"}, 410, "This game is over."),
    ("seats/0/bot", "seats/0/bot", {"bot": "greedy"}, 409, "already played by the bot"),
    ("seats/0/bot", "resend", {}, 409, "Nobody with an email address is to move"),
    (None, "seats/1/human", {}, 409, "is not played by the bot"),
    (None, "seats/7/bot", {"bot": "greedy"}, 404, "This game has no seat 7."),
])
def test_refused_actions_say_why(admin_client, admin_app, setup, action, data, status, message):
    game_id = new_game(admin_app)
    if setup:
        assert admin_client.post(f"/admin/games/{game_id}/{setup}", data={"bot": "greedy"}).status_code == 303
    audit_before = audit_actions(admin_app)
    mails_before = len(outbox(admin_app, game_id))
    response = admin_client.post(f"/admin/games/{game_id}/{action}", data=data)
    assert response.status_code == status
    assert message in text_of(response)
    assert audit_actions(admin_app) == audit_before
    assert len(outbox(admin_app, game_id)) == mails_before


@pytest.mark.parametrize("change,field,message", [
    ({"players-1-name": "B" * 41}, "players-1-name", "at most 40 characters"),
    ({"players-1-email": "bob at example"}, "players-1-email", "not an email address"),
    ({"reminders": "50,120"}, "reminders", "between 0 and 100 percent"),
])
def test_the_admin_form_shows_the_setup_checks_sentence_once_next_to_its_field(admin_client, admin_app,
                                                                            change, field, message):
    """The form's rule is the service's `setup_problems` (the CLI's too), shown by the field."""
    page = text_of(admin_client.post("/admin/games/new", data={**GOOD_FORM, **change}))
    assert f'id="{field}-error">' in page and page.count(message) == 1
    assert page.split(f'id="{field}-error">', 1)[1].split("</small>", 1)[0].find(message) >= 0
    assert game_row(admin_app, 1) is None
