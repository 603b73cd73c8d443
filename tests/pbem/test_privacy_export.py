"""'Download my data' (/me/<token>/data and data.json, pbem/games/privacy.py export_address):
every row that names the address, and of its games only what its seat could see: its own
hand and its partner's, never another side's, and other players by name, never by address."""
from __future__ import annotations

import html
import json

from game_helpers import cfg_of, db_of, outbox
from privacy_world import BOB, OTHERS, ZED, ZED_PLAIN, ZED_TALK, build_world, forms_of_zed, where_found
from sqlmodel import Session, select

import engine
from pbem import links
from pbem.models import Game, InboundMail
from pbem.store import load_state


def me_path(app, email: str) -> str:
    return "/me/" + links.sign_address(cfg_of(app), links.MY_GAMES_SALT, email)


def test_the_json_file_holds_every_row_that_names_the_address(app, smtp_server, client):
    world = build_world(app, smtp_server, client)
    response = client.get(me_path(app, ZED) + "/data.json")
    assert response.status_code == 200
    assert response.headers["Content-Disposition"] == 'attachment; filename="korsar-my-data.json"'
    assert response.mimetype == "application/json"
    data = response.get_json()
    assert data["mailbox"] == ZED_PLAIN
    assert {g["game"] for g in data["games"]} == {world.running, world.finished}
    assert [t["text"] for t in data["talk"]] == [ZED_TALK]
    assert data["preferences"][0]["timezone"] == "Europe/Paris"
    to_zed = [m for m in outbox(app) if m.to_addr.lower() == ZED.lower()]
    assert len(to_zed) >= 3
    assert [(e["kind"], e["subject"]) for e in data["emails_sent"]] == [(m.kind, m.subject) for m in to_zed]
    with Session(db_of(app)) as s:
        replies = s.exec(select(InboundMail)).all()
    assert [r["outcome"] for r in data["replies"]] == [r.outcome for r in replies if r.from_addr == ZED.lower()]
    assert data["replies"]
    assert data["bounces"][0]["reason"] == "mailbox full"
    assert data["standing"]["answered_at"]
    assert [p["proposal"] for p in data["proposals_made"]] == [world.proposal_made]
    assert [i["proposal"] for i in data["invitations_received"]] == [world.proposal_invited]
    assert data["counted_actions"]
    assert data["login_attempts"][0]["ip"] == "192.0.2.7"
    assert data["never_email"] == {"listed": False, "since": None}
    finished = next(g for g in data["games"] if g["game"] == world.finished)
    assert finished["record"]["moves"] and finished["record"]["deck"]  # the whole record, once over
    assert finished["your_seat"]["name"] == "Zebulon.Quixote+korsar"


def test_the_export_shows_no_other_address_and_no_other_sides_hand(app, smtp_server, client):
    world = build_world(app, smtp_server, client)
    text = client.get(me_path(app, ZED) + "/data.json").text
    page = client.get(me_path(app, ZED) + "/data").text
    for other in OTHERS:
        assert other not in text.lower() and other not in page.lower()
    data = json.loads(text)
    running = next(g for g in data["games"] if g["game"] == world.running)
    assert running["record"] is None and "deck" not in json.dumps(running)
    with Session(db_of(app)) as s:
        state = load_state(s.get(Game, world.running))
    mine = engine.player_view(state, 0)
    assert running["view"]["hand"] == mine["hand"]
    partner = mine["partner"]
    assert partner is not None and running["view"]["partner"] == partner
    assert running["view"]["partner_hand"] == engine.player_view(state, partner)["hand"]  # a partner's is allowed
    opponents = [s for s in range(4) if s not in (0, partner)]
    hands = engine.admin_view(state)["hands"]
    assert all(running["view"][k] != hands[o] for o in opponents for k in ("hand", "partner_hand"))
    assert "hands" not in running["view"]
    assert set(running["view"]) == {"hand", "partner", "partner_hand", "hand_sizes", "draw_pile", "table",
                                    "score_piles", "scores", "team_scores", "to_move", "version"}
    assert running["players"] == ["Zed", "Bob", "Cid", "Dan"]


def test_the_readable_page_shows_the_same(app, smtp_server, client):
    build_world(app, smtp_server, client)
    path = me_path(app, ZED)
    page = client.get(path + "/data?lang=en")
    assert page.status_code == 200
    text = html.unescape(page.text)
    assert "Zed's table" in text and ZED_TALK in text and "mailbox full" in text
    assert 'href="' + path + '/data.json"' in page.text
    assert "data-erase-link" in page.text
    assert "Status: being played" in text and ">sent<" in page.text  # statuses in words, not codes
    assert ">welcome<" in page.text and ">turn<" not in page.text  # an email's kind too
    french = html.unescape(client.get(path + "/data?lang=fr").text)
    assert "en cours" in french and "running" not in french and "cancelled" not in french
    assert ">bienvenue<" in french and ">welcome<" not in french


def test_every_kind_of_email_is_named_in_words_on_my_data():
    from pathlib import Path

    from pbem.web.my_games import STATUS_WORDS
    templates = Path(__file__).resolve().parents[2] / "email_templates"
    kinds = {p.name.removesuffix(".subject.txt") for p in templates.glob("*.subject.txt")}
    assert kinds == set(STATUS_WORDS["email_kind"])


def test_the_my_games_page_links_to_the_data_and_to_erasure(app, smtp_server, client):
    build_world(app, smtp_server, client)
    page = client.get(me_path(app, ZED)).text
    assert "data-my-data-link" in page and "data-download-json" in page and "data-erase-link" in page


def test_an_address_with_nothing_here_gets_an_empty_export(app, client):
    data = client.get(me_path(app, "nobody@example.com") + "/data.json").get_json()
    assert data["games"] == [] and data["emails_sent"] == [] and data["talk"] == []


def test_a_bad_token_is_refused(app, client):
    assert client.get("/me/forged/data.json").status_code in (400, 403, 404)
    assert BOB not in client.get("/me/forged/data").text


# Where each table that can name the address shows in the export.
SECTION_OF_TABLE = {"seat": "games", "game": "games", "invitation": "invitations_received",
                    "proposal": "proposals_made", "outbox": "emails_sent", "inbound_mail": "replies",
                    "address_preference": "preferences", "login_attempt": "login_attempts", "bounce": "bounces",
                    "address_standing": "standing", "rate_event": "counted_actions", "audit_log": "admin_actions",
                    "notice": "news", "rating": "ratings", "rating_change": "rating_changes",
                    "rated_game": "rating_changes", "leaderboard_entry": "leaderboard",
                    "analysis_preference": "analysis_email"}  # news: of its seats (others' name its seat by name)


def test_every_table_that_names_the_address_has_its_section(app, smtp_server, client):
    build_world(app, smtp_server, client)
    tables = {table for table, _column, _form in where_found(app, forms_of_zed())}
    assert tables - SECTION_OF_TABLE.keys() == set(), "a table names the address and the export has no section for it"
    data = client.get(me_path(app, ZED) + "/data.json").get_json()
    for table in tables:
        assert data[SECTION_OF_TABLE[table]], table
    assert data["admin_actions"][0]["action"] == "clear_undeliverable"
