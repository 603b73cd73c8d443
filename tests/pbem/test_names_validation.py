"""Names: a game's name and a player's name have their own checks and sentences; emoji
sequences (zero-width joiners) and scripts written with the zero-width non-joiner are names;
only control characters, line breaks, text-reordering controls (the marks included), invisible
spaces and joiners that join nothing are refused; a refusal names the seat and marks its field;
the form's maxlength is the server's limit. Talk refuses the text-reordering controls too."""
from __future__ import annotations

import re

import pytest
from game_helpers import seats, start_game
from sqlmodel import select

from pbem import links
from pbem.db import session_scope
from pbem.games import errors, names, service, setup, talk
from pbem.games.settings import GameSettings
from pbem.models import Game, OutboxMessage, TalkMessage, utcnow

ANN, BOB = "Ann <ann@example.com>", "Bob <bob@example.com>"
PIRATE_FLAG = "\U0001F3F4\u200D\u2620\uFE0F"
FAMILY = "\U0001F468\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466"
PERSIAN = "\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645"  # "mi-khaham", with a ZWNJ


HINDI = "\u0905\u0928\u094d\u200d\u0928"  # a conjunct written with a ZWJ


@pytest.mark.parametrize("name", [f"Anne {PIRATE_FLAG}", f"{FAMILY} Smith", PERSIAN, "Zo\u00eb", HINDI])
def test_names_with_joiners_and_non_joiners_are_accepted_as_written(app, name):
    game_id = start_game(app, [f"{name} <x@example.com>", BOB], seed=1)
    assert seats(app, game_id)[0].name == name


@pytest.mark.parametrize("name", ["Eve\nX", "Eve\r\nBcc: x@example.com", "Eve\tX", "Eve\x00", "Eve\x85X",
                                  "Eve\u2028X", "Eve\u2029X", "Eve\u202eX", "Eve\u2066X"])
def test_control_characters_and_line_breaks_are_refused_in_a_player_name(name):
    with pytest.raises(errors.GameError, match="may not contain line breaks or control characters"):
        names.check_name(name)


BIDI_CONTROLS = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
                 "\u200e", "\u200f", "\u061c"]


@pytest.mark.parametrize("control", BIDI_CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
def test_every_bidirectional_control_is_refused_in_a_name(control):
    with pytest.raises(errors.GameError, match="may not contain line breaks or control characters"):
        names.check_name(f"Eve{control}X")


@pytest.mark.parametrize("name", ["An\u200bn", "Ann\u2060", "\ufeffAnn",  # invisible spaces
                                  "Ann\u200d", "\u200cAnn", "Ann \u200d Bob", "An\u200d\u200dn"],  # joining nothing
                         ids=["zwsp", "word-joiner", "bom", "zwj-at-end", "zwnj-at-start", "zwj-alone",
                              "two-joiners"])
def test_invisible_characters_are_refused_in_names(name):
    for check in (names.check_name, names.check_game_name):
        with pytest.raises(errors.GameError, match="may not contain invisible characters"):
            check(name)


def test_the_new_game_form_says_a_name_holds_invisible_characters(client):
    form = {"your_name": "An\u200bn", "your_email": "ann@example.com", "players": "bot:greedy",
            "deadline_hours": "72", "reminders": "50,85", "on_timeout": "autoplay"}
    response = client.post("/new", data=form)
    assert response.status_code == 422
    assert "A name may not hold invisible characters" in response.get_data(as_text=True)


NEW_FORM = {"your_name": "Ann", "your_email": "ann@example.com", "deadline_hours": "72", "reminders": "50,85",
            "on_timeout": "autoplay"}


@pytest.mark.parametrize("friend", ["Marie-Élisabeth de La Rochefoucauld-Dûpon <mar@example.org>",
                                    f"{PIRATE_FLAG * 41} <zwj@example.org>"], ids=["41-letters", "41-pirate-flags"])
def test_new_refuses_a_too_long_friend_name_with_the_length_reason(client, friend):
    page = client.post("/new", data={**NEW_FORM, "players": friend}).get_data(as_text=True)
    assert "Line 1: A player name may have at most 40 characters." in page
    assert "write a player as" not in page


@pytest.mark.parametrize("name, seen", [(PIRATE_FLAG * 11, 11), (FAMILY, 1), ("E\u0301lodie", 6),
                                        ("\U0001F1EB\U0001F1F7\U0001F1FB\U0001F1F3", 2), ("Zoë", 3)])
def test_a_name_is_counted_in_the_characters_a_reader_sees(name, seen):
    assert len(names.graphemes(name)) == seen


def test_forty_pirate_flags_are_a_name_of_forty_characters():
    assert names.check_name(PIRATE_FLAG * 40) == PIRATE_FLAG * 40


@pytest.mark.parametrize("line, kept", [
    (f"{PIRATE_FLAG * 70} zwj@example.org", PIRATE_FLAG * 59),  # no space: cut between two flags
    ("Marie Élisabeth de La Rochefoucauld Dûpont Montmorency, marie at example",
     "Marie Élisabeth de La Rochefoucauld Dûpont Montmorency,"),  # cut at the last space
])
def test_an_echoed_line_is_never_cut_inside_a_word_or_an_emoji_sequence(client, line, kept):
    page = client.post("/new", data={**NEW_FORM, "players": line}).get_data(as_text=True)
    assert f"{kept}…" in page
    assert names.shortened(line, 60) == f"{kept}…"


@pytest.fixture
def team_game(app):
    return start_game(app, [ANN, BOB, "Cid <cid@example.com>", "Dan <dan@example.com>"], teams=True, seed=5)


@pytest.mark.parametrize("words", [f"keep the blue{c} for ship 2" for c in BIDI_CONTROLS] + ["&#x202E;olleh"],
                         ids=[f"U+{ord(c):04X}" for c in BIDI_CONTROLS] + ["entity"])
def test_talk_that_would_turn_the_text_around_is_refused_and_nothing_is_stored(app, team_game, words):
    cfg = app.config["KORSAR"]
    with session_scope(app.extensions["korsar_db"]) as session:
        game = session.get(Game, team_game)
        table = service.seats_of(session, team_game)
        said = talk.say(session, cfg, game, table, table[0], words + " " + "and more words " * 30, utcnow())
        assert said.refused == talk.BIDI_IN_TALK and not talk.reorders(said.text)
        assert "direction of the text" in said.refused_text
    with session_scope(app.extensions["korsar_db"]) as session:
        assert session.exec(select(TalkMessage)).first() is None
        assert session.exec(select(OutboxMessage).where(OutboxMessage.kind == "talk_heard")).first() is None


def test_the_talk_form_refuses_a_bidirectional_control_with_its_sentence(app, client, team_game):
    cfg = app.config["KORSAR"]
    seat = seats(app, team_game)[0]
    token = links.sign_seat(cfg, team_game, seat.position, seat.link_nonce)
    response = client.post(f"/g/{token}/talk", data={"text": "gg \u202eekaj"})
    assert response.status_code == 422
    assert "direction of the text" in response.get_data(as_text=True)
    with session_scope(app.extensions["korsar_db"]) as session:
        assert session.exec(select(TalkMessage)).first() is None


def test_a_long_game_name_is_refused_with_the_game_names_own_sentence():
    problems = setup.setup_problems([setup.parse_player(ANN), setup.parse_player(BOB)],
                                      GameSettings(name="G" * (names.MAX_GAME_NAME_LENGTH + 1)))
    assert [(p.field, p.seat) for p in problems] == [("name", None)]
    assert problems[0].message == f"A game name may have at most {names.MAX_GAME_NAME_LENGTH} characters."
    assert "player" not in problems[0].message


def test_a_game_name_of_41_characters_is_fine():
    problems = setup.setup_problems([setup.parse_player(ANN), setup.parse_player(BOB)], GameSettings(name="G" * 41))
    assert problems == []


def test_a_bad_player_name_names_its_seat():
    specs = [setup.SeatSpec("Ann", "ann@example.com"), setup.SeatSpec("B" * 41, "bob@example.com")]
    (problem,) = setup.setup_problems(specs)
    assert (problem.field, problem.seat) == ("name", 1)
    assert problem.message == "Seat 2: A player name may have at most 40 characters."


def test_a_bad_address_names_its_seat_and_its_player():
    specs = [setup.SeatSpec("Ann", "ann@example.com"), setup.SeatSpec("Bob", "bob")]
    (problem,) = setup.setup_problems(specs)
    assert (problem.field, problem.seat) == ("email", 1)
    assert problem.message.startswith("Seat 2 (Bob): ")


def test_a_command_line_player_that_cannot_be_read_names_its_seat():
    with pytest.raises(setup.SetupError, match=r"^Seat 2: .*not a player like"):
        setup.check_setup([ANN, "Bob without an address"])


def _maxlength(html: str, name: str) -> int:
    tag = re.search(rf'<input[^>]*name="{re.escape(name)}"[^>]*>', html)
    assert tag is not None, name
    found = re.search(r'maxlength="(\d+)"', tag.group(0))
    assert found is not None, tag.group(0)
    return int(found.group(1))


def test_the_new_game_forms_maxlengths_are_the_servers_limits(admin_client):
    html = admin_client.get("/admin/games/new").get_data(as_text=True)
    assert _maxlength(html, "name") == names.MAX_GAME_NAME_LENGTH
    assert _maxlength(html, "players-0-name") == names.MAX_NAME_LENGTH


def test_the_form_marks_the_field_of_the_seat_whose_name_is_refused(admin_client):
    form = {"deadline_hours": "72", "reminders": "50,85", "on_timeout": "autoplay",
            "end_settlement": "resolve", "players-0-name": "Ann", "players-0-email": "ann@example.com",
            "players-0-kind": "human", "players-1-name": "Bob\u202e", "players-1-email": "bob@example.com",
            "players-1-kind": "human"}
    response = admin_client.post("/admin/games/new", data=form)
    page = response.get_data(as_text=True)
    assert response.status_code != 303  # nothing created
    field = re.search(r'<input[^>]*name="players-1-name"[^>]*>', page)
    assert field is not None and 'aria-invalid="true"' in field.group(0)
    assert "Seat 2: A player name may not contain line breaks or control characters." in page
    other = re.search(r'<input[^>]*name="players-0-name"[^>]*>', page)
    assert other is not None and "aria-invalid" not in other.group(0)
