"""The replay of a game (pbem/web/replay.py, pbem/present/replay.py): every step's table, score
piles and hands are the engine's replay of the record to that step; a seat's replay during the
game shows only what that seat saw; GET changes nothing; the admin's needs a login; a bad step
is a clear 400 or 404."""
from __future__ import annotations

from collections import Counter
from datetime import timedelta
from html.parser import HTMLParser
from typing import Any

import pytest
from sqlmodel import select
from game_helpers import (cfg_of, db_of, game_page_path, game_row, hand_sections, html_part, seats,
                          start_game, text_part)
from test_seat_actions import play_to_the_end, seat_path

import engine
from engine.replay import replay_state
from engine.state import hand_codes
from engine.view import table_json

from pbem.db import session_scope
from pbem.mail.delivery import deliver_due
from pbem.models import utcnow
from pbem.games import bots, records, service
from pbem import store

ANN, BOB, CAT, DAN = ("Ann <ann@example.com>", "Bob <bob@example.com>", "Cat <cat@example.com>",
                      "Dan <dan@example.com>")


class Steps(HTMLParser):
    """What a replay page draws: each ship's value and cards (data-ship), each pile (data-pile)."""

    def __init__(self) -> None:
        super().__init__()
        self.ships: list[dict[str, Any]] = []
        self.piles: dict[int, list[int]] = {}
        self.cards: list[str] = []
        self.depth = 0
        self.ship_depth: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag not in {"br", "meta", "link", "input", "img"}:
            self.depth += 1
        if "data-ship" in a:
            self.ships.append({"id": int(a["data-ship"] or 0), "value": None, "cards": []})
            self.ship_depth = self.depth
        if "data-merchant" in a and self.ship_depth is not None:
            self.ships[-1]["value"] = int(a["data-merchant"] or 0)
        if "data-card" in a:
            self.cards.append(a["data-card"] or "")
            if self.ship_depth is not None:
                self.ships[-1]["cards"].append(a["data-card"])
        if "data-pile" in a and "data-player" not in a:
            self.piles[len(self.piles)] = [int(g) for g in (a["data-pile"] or "").split(",") if g]

    def handle_endtag(self, tag: str) -> None:
        if tag in {"br", "meta", "link", "input", "img"}:
            return
        if self.ship_depth is not None and self.depth == self.ship_depth:
            self.ship_depth = None
        self.depth -= 1


def drawn(html: str) -> Steps:
    parser = Steps()
    parser.feed(html)
    return parser


def state_at(record: dict[str, Any], step: int) -> engine.GameState:
    state, error = replay_state({**record, "moves": record["moves"][:step]})
    assert error is None
    return state


def engine_table(state: engine.GameState) -> list[dict[str, Any]]:
    return [{"id": ship["id"], "value": ship["value"],
             "cards": [c for side in ship["sides"] for c in side["cards"]]} for ship in table_json(state)]


def record_of(app: Any, game_id: int, *, live: bool = False) -> dict[str, Any]:
    with session_scope(db_of(app)) as s:
        return records.export_record(s, game_id, live=live)


def play_moves(app: Any, game_id: int, count: int) -> None:
    """`count` moves, each the bot's choice for the seat to move."""
    cfg = cfg_of(app)
    for _ in range(count):
        game = game_row(app, game_id)
        mover = seats(app, game_id)[game.to_move]
        move = bots.bot_move(game, mover, store.load_state(game), cfg=cfg)
        with session_scope(db_of(app)) as s:
            service.apply_game_move(s, cfg, game_id, mover.position, move, expected_version=game.version)


pytestmark = pytest.mark.usefixtures("links_signed_at_one_instant")


@pytest.fixture
def finished(app) -> int:
    game_id = start_game(app, [ANN, BOB, "bot:greedy"], seed=3)
    play_to_the_end(app, game_id)
    return game_id


def replay_path(app: Any, game_id: int, position: int) -> str:
    return seat_path(app, game_id, position) + "/replay"


def pages(client: Any, path: str, last: int) -> list[str]:
    out = []
    for step in range(last + 1):
        page = client.get(f"{path}/{step}")
        assert page.status_code == 200, (step, page.text[:500])
        out.append(page.text)
    return out


# ---------------------------------------------------------------- a game that is over
def test_each_step_of_a_finished_game_is_the_engine_replay_of_its_record_to_that_step(app, client, finished):
    record = record_of(app, finished)
    last = len(record["moves"])
    for step, html in enumerate(pages(client, replay_path(app, finished, 0), last)):
        state = state_at(record, step)
        picture = drawn(html)
        assert [{k: ship[k] for k in ("id", "value")} for ship in picture.ships] == \
            [{k: ship[k] for k in ("id", "value")} for ship in engine_table(state)], step
        assert [Counter(ship["cards"]) for ship in picture.ships] == \
            [Counter(ship["cards"]) for ship in engine_table(state)], step
        assert [sorted(picture.piles[s]) for s in range(state.n_seats)] == \
            [sorted(pile) for pile in state.score_piles], step
        hands = hand_sections(html).hands
        kinds = {0: "own", 1: "seat", 2: "seat"}
        assert {seat: sorted(hands[(kinds[seat], str(seat))]) for seat in range(3)} == \
            {seat: sorted(hand_codes(state, seat)) for seat in range(3)}, step
    assert state.finished


def test_each_step_says_its_move_in_words_and_links_to_every_other_step(app, client, finished):
    path = replay_path(app, finished, 1)
    page = client.get(f"{path}/2").text
    assert "Move 2" in page and "You played Red 1" in page  # Bob's second move: the log's words
    assert f'href="{path}/1"' in page and f'href="{path}/3"' in page and f'href="{path}/0"' in page
    last = len(record_of(app, finished)["moves"])
    assert f'href="{path}/{last}"' in page
    assert 'aria-current="step"' in page and 'type="range"' in page and f'max="{last}"' in page
    first = client.get(path).text  # the deal
    assert "The deal" in first and 'data-replay-prev' not in first
    assert 'data-replay-next' not in client.get(f"{path}/{last}").text
    assert client.get(f"{path}?step=2").text == page  # the slider's form without JavaScript


@pytest.mark.parametrize("language, words", [
    ("fr", ("Revoir ", "Coup\u00a02", "Suivante", "La donne", "Toutes les étapes")),
    ("vi", ("Xem lại ván", "Nước đi 2", "Tiếp", "Chia bài", "Tất cả các bước")),
])
def test_the_replay_is_written_in_the_seats_language_with_no_english_left(app, client, finished, language, words):
    from test_i18n_pages import english_in, visible

    from pbem.models import Seat
    with session_scope(db_of(app)) as s:
        for seat in s.exec(select(Seat)).all():
            seat.language = language
    path = replay_path(app, finished, 0)
    for url in (f"{path}/2", f"{path}?step=x"):
        html = client.get(url).text
        assert f'<html lang="{language}">' in html
        assert not english_in(visible(html)), (url, english_in(visible(html)))
    html = client.get(f"{path}/2").text
    assert all(word in html for word in words), [w for w in words if w not in html]


WHOLE = "A step of this replay is a whole number from 0 to"


@pytest.mark.parametrize("step, status, words", [
    ("abc", 400, WHOLE),
    ("-1", 400, WHOLE),
    ("1.5", 400, WHOLE),
    ("", 400, WHOLE),
    ("99999", 404, "This game has no step 99999: its replay goes from step 0 to step"),
    ("12345678901234", 404, "This game has no step 12345678901234"),
])
def test_a_bad_step_is_a_clear_refusal(app, client, finished, step, status, words):
    path = replay_path(app, finished, 0)
    for url in [f"{path}?step={step}"] + ([f"{path}/{step}"] if step else []):
        page = client.get(url)
        assert page.status_code == status, url
        assert words in page.text and "Nothing was changed" in page.text


def test_the_game_page_and_the_game_over_email_link_to_the_replay(app, client, smtp_server, finished):
    path = seat_path(app, finished, 0)
    assert f'href="{path}/replay"' in client.get(path).text
    deliver_due(db_of(app), cfg_of(app), now=utcnow() + timedelta(days=30), batch_size=1000)
    for address in ("ann@example.com", "bob@example.com"):
        over = [m for m in smtp_server.to(address) if "over" in str(m["Subject"]).lower()][-1]
        page = game_page_path(text_part(over))
        assert f"http://korsar.test{page}/replay" in text_part(over)
        assert f'href="http://korsar.test{page}/replay"' in html_part(over)


# ---------------------------------------------------------------- a game being played
@pytest.mark.parametrize("players, teams", [([ANN, BOB, CAT], False), ([ANN, BOB, CAT, DAN], True)],
                         ids=["individual", "teams"])
def test_a_seats_replay_during_the_game_never_shows_another_sides_hand(app, client, players, teams):
    game_id = start_game(app, players, seed=11, teams=teams)
    play_moves(app, game_id, 24)
    record = record_of(app, game_id, live=True)
    last = len(record["moves"])
    assert last >= 24  # and the forced moves
    page = seat_path(app, game_id, 0)
    assert f'href="{page}/replay"' in client.get(page).text and "Replay the game so far" in client.get(page).text
    states = [state_at(record, step) for step in range(last + 1)]
    for position in range(len(players)):
        partner = engine.partner_of(states[0], position)
        for step, html in enumerate(pages(client, replay_path(app, game_id, position), last)):
            state = states[step]
            hands = hand_sections(html).hands
            seen = {("own", str(position)): sorted(hand_codes(state, position))}
            if partner is not None:
                seen[("partner", str(partner))] = sorted(hand_codes(state, partner))
            assert {key: sorted(cards) for key, cards in hands.items()} == seen, (position, step)
            # Every card drawn on the page is one the seat may see: its hands' and the table's.
            table = [c for ship in engine_table(state) for c in ship["cards"]]
            visible = Counter(hand_codes(state, position)) + Counter(table)
            if partner is not None:
                visible += Counter(hand_codes(state, partner))
            assert Counter(drawn(html).cards) == visible, (position, step)
            others = [s for s in range(len(players)) if s not in (position, partner)]
            for other in others:
                assert f'data-seat="{other}"' not in html
            assert "still being played" in html


def test_a_seats_replay_of_a_game_being_played_is_the_engine_replay_to_each_step(app, client):
    game_id = start_game(app, [ANN, BOB, CAT], seed=5)
    play_moves(app, game_id, 12)
    record = record_of(app, game_id, live=True)
    for step, html in enumerate(pages(client, replay_path(app, game_id, 2), len(record["moves"]))):
        state = state_at(record, step)
        assert [{k: ship[k] for k in ("id", "value")} for ship in drawn(html).ships] == \
            [{k: ship[k] for k in ("id", "value")} for ship in engine_table(state)], step
        assert sorted(hand_sections(html).hands[("own", "2")]) == sorted(hand_codes(state, 2))


# ---------------------------------------------------------------- inert, the admin
def test_get_and_head_of_the_replay_change_nothing(app, client, finished):
    from sqlmodel import Session, select
    from pbem.models import Game, MoveRecord, OutboxMessage, Seat

    def snapshot() -> Any:
        with Session(db_of(app)) as s:
            return [[row.model_dump() for row in s.exec(select(kind))]
                    for kind in (Game, Seat, MoveRecord, OutboxMessage)]

    before = snapshot()
    path = replay_path(app, finished, 0)
    for url in (path, f"{path}/3", f"{path}?step=4", f"{path}/999", f"{path}/x"):
        for method in ("GET", "HEAD"):
            assert client.open(url, method=method).status_code < 500
    assert client.post(f"{path}/3").status_code == 405
    assert snapshot() == before


def test_the_admin_replay_needs_a_login_and_shows_every_hand_at_every_step(admin_app, admin_client, finished):
    anonymous = admin_app.test_client()
    url = f"/admin/games/{finished}/replay"
    assert anonymous.get(url).status_code in (302, 303)
    assert anonymous.get(f"{url}/3").status_code in (302, 303)
    record = record_of(admin_app, finished)
    page = admin_client.get(f"{url}/7")
    assert page.status_code == 200
    assert page.headers["Cache-Control"] == "no-store"
    state = state_at(record, 7)
    hands = hand_sections(page.text).hands
    assert {seat: sorted(hands[("seat", str(seat))]) for seat in range(3)} == \
        {seat: sorted(hand_codes(state, seat)) for seat in range(3)}
    assert f'href="/admin/games/{finished}"' in page.text
    assert f'href="{url}"' in admin_client.get(f"/admin/games/{finished}").text
    assert admin_client.get(f"{url}/999").status_code == 404
    assert admin_client.get(f"{url}/x").status_code == 404
    assert admin_client.get(f"{url}?step=x").status_code == 400
    assert admin_client.get("/admin/games/9999/replay").status_code == 404


def test_the_admin_replays_a_game_being_played_with_every_hand(admin_app, admin_client):
    game_id = start_game(admin_app, [ANN, BOB, CAT], seed=5)
    play_moves(admin_app, game_id, 3)
    state = state_at(record_of(admin_app, game_id, live=True), 3)
    hands = hand_sections(admin_client.get(f"/admin/games/{game_id}/replay/3").text).hands
    assert sorted(hands[("seat", "1")]) == sorted(hand_codes(state, 1))
    assert "still being played" not in admin_client.get(f"/admin/games/{game_id}/replay/3").text


# ---------------------------------------------------------------- the analysis seam
def test_the_analysis_partial_draws_nothing_without_an_analysis_and_the_admin_gets_none(app):
    """The analysis itself on a replay step: tests/pbem/test_analysis.py."""
    from flask import render_template_string
    from pbem.present.replay import Reader
    from pbem.web.replay import analysis_for

    with app.test_request_context("/"):
        assert render_template_string('{% include "replay/_analysis.html" %}', analysis=None,
                                      analysis_chart=None).strip() == ""
    from types import SimpleNamespace

    admin, running = Reader.everything(), SimpleNamespace(status="running", id=1)
    assert analysis_for(None, running, [], admin, 1, []) == {"analysis": None, "analysis_chart": None}  # type: ignore[arg-type]


def test_the_last_step_says_who_won_as_the_game_page_does(app, client, finished):
    """The replay's verdict is the board's own ("You won!" for the reader's side, the language's
    "and" between winners), word for word the game page's, never "Winner: you"."""
    import re
    last = len(record_of(app, finished)["moves"])
    for position in range(2):
        game_page = client.get(seat_path(app, finished, position)).text
        replay = client.get(f"{replay_path(app, finished, position)}/{last}").text
        verdict = re.search(r"The game is over\.\s*(.*?)\s*</p>", game_page, re.S)
        replayed = re.search(r"The game is over\.</strong>\s*(.*?)\s*</p>", replay, re.S)
        assert verdict and replayed and verdict[1]
        assert replayed[1] == verdict[1]
        assert "<strong>you</strong>" not in replayed[1]


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_seats_replay_at_its_last_step_draws_the_players_and_table_as_the_game_page(app, client, language):
    """The replay's players and table are the board's own partials (shared/players.html,
    shared/table.html): at the last step of a team game being played, the same markup as the
    game page's (the partner marked, the teams' gold with the language's separator)."""
    import re

    from pbem.models import Seat
    game_id = start_game(app, [ANN, BOB, CAT, DAN], seed=11, teams=True)
    play_moves(app, game_id, 10)
    with session_scope(db_of(app)) as s:
        for seat in s.exec(select(Seat)).all():
            seat.language = language
    last = len(record_of(app, game_id, live=True)["moves"])

    def section(html: str, name: str) -> str:
        found = re.search(rf'<section class="{name}">.*?</section>', html, re.S)
        assert found, name
        return found[0]

    game_page = client.get(seat_path(app, game_id, 0)).text
    replay = client.get(f"{replay_path(app, game_id, 0)}/{last}").text
    for name in ("players", "table"):
        assert section(replay, name) == section(game_page, name), name
    assert 'class="teams"' in section(replay, "players")


def test_the_cache_of_finished_games_never_serves_another_games_states(app, monkeypatch):
    """Two games with the same id and version (two databases in one process) but other decks:
    each gets the states of its own record."""
    from pbem.models import Game
    from pbem.web import replay as replay_web

    one, other = (start_game(app, [ANN, BOB, "bot:greedy"], seed=seed) for seed in (3, 4))
    for game_id in (one, other):
        play_to_the_end(app, game_id)
    exported = {game_row(app, g).deck_json: record_of(app, g) for g in (one, other)}
    monkeypatch.setattr(replay_web.records, "export_record",
                        lambda session, game_id, live=False: exported[current.deck_json])
    monkeypatch.setattr(replay_web, "_FINISHED", type(replay_web._FINISHED)())
    for deck, record in exported.items():
        current = Game(id=1, version=99, deck_json=deck)
        states = replay_web._states(None, current, True)
        assert states[-1] == state_at(record, len(record["moves"]))
