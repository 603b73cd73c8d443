"""What a player reads (issue 14): one public score for every side, the hand's cost beside
your own row, the final breakdown, why a ship cannot be played, tied battles, the table drawn,
the rules page, the deadline of the player to move, numbered moves and a confirmation page
that says what the move will do."""
from __future__ import annotations

import random
import re

import engine
import pytest
from bs4 import BeautifulSoup
from game_helpers import cfg_of, db_of, deck_with_hands, deliver, game_row, hand_sections, seats, \
    start_game
from engine.testing import build_deck, play

from pbem import links
from pbem.db import session_scope
from pbem.games import service
from pbem.present.colours import CARD_STYLE
from pbem import store
from pbem.letters import notify
from pbem.present.board import board
from pbem.present.final import final_result
from pbem.present.phrases import event_sentences
from pbem.mail.render import render_email
from pbem.models import Game, Seat

TEAM = ["Alice <alice@example.com>", "Bob <bob@example.com>", "Carol <carol@example.com>",
        "Dave <dave@example.com>"]
# Alice (0) and Bob (1) against Carol (2) and Dave (3); every hand holds merchant ships.
TEAM_DECK = deck_with_hands(["M5", "B2", "B3", "M3", "M4", "G1"], ["M6", "R2", "K3", "M2", "M2", "G2"],
                            ["M7", "G3", "G4", "M2", "M3", "R1"], ["M8", "B1", "K4", "M3", "M4", "AD"])


def _seat(session, game_id: int, position: int) -> Seat:
    return session.exec(service.select(Seat).where(Seat.game_id == game_id, Seat.position == position)).one()


def _play(app, game_id: int, *moves: tuple[int, dict]) -> None:
    with session_scope(db_of(app)) as s:
        for position, move in moves:
            service.apply_game_move(s, cfg_of(app), game_id, position, move)


def _context(app, game_id: int, position: int) -> dict:
    with session_scope(db_of(app)) as s:
        game = s.get(Game, game_id)
        return notify.seat_context(s, cfg_of(app), game, _seat(s, game_id, position),
                                   store.load_state(game), since=0)


def _page(app, client, game_id: int, position: int) -> str:
    seat = seats(app, game_id)[position]
    return client.get("/g/" + links.sign_seat(cfg_of(app), game_id, position, seat.link_nonce)).text


def _score_cells(html: str) -> dict[str, str]:
    """Player row -> its score cell, from a page's or an email's players table."""
    rows = re.findall(r'<tr data-player="(\d)"[^>]*>(.*?)</tr>', html, re.S)
    return {seat: re.findall(r"<strong>(-?\d+)</strong>", row)[-1] for seat, row in rows}


@pytest.fixture
def team_game(app) -> int:
    game_id = start_game(app, TEAM, teams=True, deck=TEAM_DECK)
    _play(app, game_id, (0, {"action": "play", "card": "M5"}), (1, {"action": "play", "card": "M6"}),
          (2, {"action": "play", "card": "G3", "target": 1}), (3, {"action": "play", "card": "M8"}))
    return game_id


# ---------------------------------------------------------------- 1. one public score
def test_every_reader_sees_the_same_score_for_every_side(app, client, team_game):
    pages = [_page(app, client, team_game, p) for p in range(4)]
    cells = [_score_cells(page) for page in pages]
    assert all(c == cells[0] for c in cells) and len(cells[0]) == 4
    emails = [render_email("turn", "x@example.com", _context(app, team_game, p)).html_body for p in range(4)]
    assert all(_score_cells(html) == cells[0] for html in emails)
    teams = [re.findall(r"(-?\d+) gold", re.search(r"Teams: ([^<]+)</p>", page)[1]) for page in pages]
    assert all(t == teams[0] for t in teams) and len(teams[0]) == 2


def test_beside_your_own_row_is_what_your_hand_would_cost_at_the_end(app, team_game):
    context = _context(app, team_game, 0)
    state = store.load_state(game_row(app, team_game))
    hands = engine.admin_view(state)["hands"]
    text = render_email("turn", "alice@example.com", context).text_body
    for seat in (0, 1):  # Alice and her partner Bob
        merchants = [int(c[1:]) for c in hands[seat] if c[0] == "M"]
        assert (f"{len(merchants)} merchant ships in hand: -{sum(merchants)} if the game ended now"
                in text)
    assert text.count("if the game ended now") == 2


def test_no_reader_learns_another_sides_hand_cost(app, client, team_game):
    page = _page(app, client, team_game, 2)  # Carol: her own row and her partner Dave's only
    rows = dict(re.findall(r'<tr data-player="(\d)"[^>]*>(.*?)</tr>', page, re.S))
    assert {seat for seat, row in rows.items() if "data-hand-cost" in row} == {"2", "3"}


# ---------------------------------------------------------------- 2. the final breakdown
def _finished_state(want) -> tuple[engine.GameState, list[list[dict]]]:
    """The first seeded random 2-player game whose end satisfies `want(state, moves)`."""
    for seed in range(500):
        rng = random.Random(seed)
        state = engine.new_game(["Ann", "Bob"], seed=seed)
        moves: list[list[dict]] = []
        while not state.finished:
            legal = engine.legal_moves(state)
            plays = [m for m in legal if m["action"] != "draw"]
            move = rng.choice(plays if plays and rng.random() < 0.7 else legal)
            state, events = engine.apply_move(state, state.to_move, move)
            moves.append([e.to_json() for e in events])
        if want(state, moves):
            return state, moves
    raise AssertionError("no such game in 500 seeds")


def _settled_after_a_fight(state, moves) -> bool:
    attacked = {e["ship"] for m in moves for e in m if e.get("attack")}
    return any(e["kind"] == "capture" and e["settlement"] and e["seat"] == e["owner"]
               and e["ship"] in attacked for e in moves[-1])


def test_the_final_settlement_never_says_came_home_safely_for_a_ship_fought_over():
    state, moves = _finished_state(_settled_after_a_fight)
    view = engine.player_view(state, 0)
    last = event_sentences(moves, view["players"], 0)[-1]
    attacked = {e["ship"] for m in moves for e in m if e.get("attack")}
    for event, sentence in zip(moves[-1], last):
        if event["kind"] == "capture" and event["ship"] in attacked:
            assert "came home safely" not in sentence and "won the fight" in sentence
    result = final_result(view, moves)
    fought = [line for line in result["settled"] if "won the fight for it" in line]
    assert fought and not any("went home" in line for line in fought)


def test_the_final_breakdown_adds_up_to_each_sides_score_and_places_the_reader():
    state, moves = _finished_state(lambda s, m: any(engine.admin_view(s)["hand_merchants"]))
    final_scores = engine.scores(state)
    for seat in (0, 1):
        result = final_result(engine.player_view(state, seat), moves)
        for side in result["sides"]:
            assert side["captured_gold"] - side["hand_gold"] == side["score"] == final_scores[side["side"]]
        mine = final_scores[seat]
        place = 1 + sum(1 for s in final_scores if s > mine)
        ordinal = {1: "1st", 2: "2nd"}[place]
        shared = final_scores.count(mine) > 1
        assert result["placing"] == (f"You shared {ordinal} place of 2." if shared else
                                     f"You came {ordinal} of 2.")


def test_the_game_over_email_and_page_show_the_breakdown(app, client):
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=5)
    rng = random.Random(5)
    for _ in range(400):
        with session_scope(db_of(app)) as s:
            game = s.get(Game, game_id)
            if game.to_move is None or game.status != "running":
                break
            legal = engine.legal_moves(store.load_state(game))
            plays = [m for m in legal if m["action"] != "draw"]
            service.apply_game_move(s, cfg_of(app), game_id, game.to_move,
                                    rng.choice(plays if plays and rng.random() < 0.7 else legal))
    state = store.load_state(game_row(app, game_id))
    assert state.finished
    hands = engine.admin_view(state)["hands"]
    with session_scope(db_of(app)) as s:
        email = notify.game_over_email(s, cfg_of(app), s.get(Game, game_id), _seat(s, game_id, 0))
    text, page = email.text_body, _page(app, client, game_id, 0)
    for body in (text, email.html_body, page):
        assert re.search(r"You (came|shared) (1st|2nd)", body)
    for seat in (0, 1):  # You, Bob
        left = sorted((int(c[1:]) for c in hands[seat] if c[0] == "M"), reverse=True)
        if left:
            assert f"left in hand: {' + '.join(map(str, left))}: -{sum(left)}" in text
        # the one score block: each side's score in the final breakdown (no second list of gold)
        assert f"score: {engine.scores(state)[seat]}" in text


# ---------------------------------------------------------------- 4. why a move is missing
def test_the_turn_email_says_why_you_cannot_reinforce_a_ship_of_your_colour(app):
    deck = deck_with_hands(["M5", "B2", "G3", "M2", "M3", "M4"], ["R2", "R1", "K1", "M4", "M4", "M2"])
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], deck=deck)
    _play(app, game_id, (0, {"action": "play", "card": "M5"}),
          (1, {"action": "play", "card": "R2", "target": 1}),
          (0, {"action": "play", "card": "G3", "target": 1}),
          (1, {"action": "play", "card": "R1", "target": 1}))
    email = render_email("turn", "ann@example.com", _context(app, game_id, 0))
    assert "You play Green on ship 1 and hold no Green." in email.text_body
    assert "You play Green on ship 1 and hold no Green." in email.html_body


def test_a_tied_battle_is_marked_nobody_takes_it(app, client):
    deck = deck_with_hands(["M5", "B2", "M2", "M2", "M3", "M4"], ["R2", "M3", "K1", "M4", "M4", "M2"])
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], deck=deck)
    _play(app, game_id, (0, {"action": "play", "card": "M5"}),
          (1, {"action": "play", "card": "R2", "target": 1}),
          (0, {"action": "play", "card": "B2", "target": 1}))
    email = render_email("turn", "bob@example.com", _context(app, game_id, 1))
    assert "(tied: nobody takes it)" in email.text_body and "(tied: nobody takes it)" in email.html_body
    assert "(tied: nobody takes it)" in _page(app, client, game_id, 0)


def test_the_rules_page_is_public_and_linked_from_the_emails_and_pages(app, client, team_game):
    page = client.get("/rules")
    assert page.status_code == 200 and "A tie takes nothing" in page.text
    assert 'href="/rules"' in _page(app, client, team_game, 0)
    context = _context(app, team_game, 0)
    for kind in ("turn", "welcome"):
        email = render_email(kind, "alice@example.com", context)
        assert "http://korsar.test/rules" in email.text_body and 'href="http://korsar.test/rules"' in email.html_body


def test_the_welcome_summary_reads_plainly(app, smtp_server):
    start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=2)
    deliver(app)
    text = smtp_server.to("bob@example.com")[0].get_body(("plain",)).get_content()
    assert "is taken there" not in text
    assert "Your first pirate there must be in a colour nobody else uses on that ship" in text


# ---------------------------------------------------------------- 5. a drawn table
def test_the_email_table_is_drawn_with_inline_styles_only(app, team_game):
    html = render_email("turn", "alice@example.com", _context(app, team_game, 0)).html_body
    assert "class=" not in html and "<svg" not in html.lower() and "<img" not in html.lower()
    ship = str(BeautifulSoup(html, "lxml").find("table", attrs={"data-ship": "1"}))
    assert "Ship 1" in ship and ">5<" in ship and "Your" in ship  # card: number, gold, owner
    green = CARD_STYLE["green"][0]
    assert "Carol and Dave" in ship and f"border-color:{green}" in ship and "border-left-width:6px" in ship
    assert "would take it now" in ship and "background:#fff3c4" in ship


def test_the_counting_captain_is_marked(app, client):
    deck = deck_with_hands(["M5", "B2", "M2", "M2", "M3", "M4"], ["R2", "RC", "K1", "M4", "M4", "M2"])
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], deck=deck)
    _play(app, game_id, (0, {"action": "play", "card": "M5"}),
          (1, {"action": "play", "card": "R2", "target": 1}),
          (0, {"action": "play", "card": "B2", "target": 1}),
          (1, {"action": "play", "card": "RC", "target": 1}))
    text = render_email("turn", "ann@example.com", _context(app, game_id, 0)).text_body
    assert "Red captain (counts)" in text
    page = _page(app, client, game_id, 0)
    assert re.search(r'data-card="RC">(<span class="mark"[^>]*>[^<]*</span> )?Red captain</span>'
                     r'<span class="counts" data-counts>', page)


# ---------------------------------------------------------------- 7. the game page
def test_the_game_page_shows_the_deadline_of_the_player_to_move(app, client, team_game):
    game = game_row(app, team_game)
    assert game.to_move == 0 and game.deadline_at is not None
    assert "Your turn ends " in _page(app, client, team_game, 0)
    assert "Alice has until " in _page(app, client, team_game, 1)


def test_the_game_page_moves_open_their_confirmation_and_play_nothing(app, client, team_game):
    page = _page(app, client, team_game, 0)
    posts = re.findall(r'<form method="post" action="([^"]+)"', page)
    assert not hand_sections(page).move_forms and all(a.endswith("/talk") for a in posts)
    before = game_row(app, team_game).version
    for path in re.findall(r'<a class="move" href="(/m/[^"]+)"', page):
        assert client.get(path).status_code == 200
    assert game_row(app, team_game).version == before


def test_every_move_has_its_number_in_legal_moves_order(app, client, team_game):
    context = _context(app, team_game, 0)
    view = engine.player_view(store.load_state(game_row(app, team_game)), 0)
    assert [m["number"] for m in context["moves"]] == list(range(1, len(view["legal_moves"]) + 1))
    assert [m["move"] for m in context["moves"]] == view["legal_moves"]
    text = render_email("turn", "alice@example.com", context).text_body
    for mv in context["moves"]:
        assert f"\n{mv['number']}. {mv['text']}\n" in text
    page = _page(app, client, team_game, 0)
    assert [int(n) for n in re.findall(r'data-move-number="(\d+)"', page)] == [m["number"] for m in context["moves"]]


# ---------------------------------------------------------------- 10. the confirmation page
def _confirm(app, client, game_id: int, position: int, move: dict) -> str:
    seat = seats(app, game_id)[position]
    token = links.sign_move(cfg_of(app), game_id, position, seat.link_nonce,
                            game_row(app, game_id).version, move)
    return client.get("/m/" + token).text


def test_the_confirmation_button_reads_the_move_itself(app, client, team_game):
    page = _confirm(app, client, team_game, 0, {"action": "play", "card": "M3"})
    assert '<button type="submit" class="primary">Play your merchant ship (3 gold)</button>' in page
    assert "Play: " not in page


def test_the_confirmation_page_says_you_will_lead_and_take_the_ship(app, client, team_game):
    page = _confirm(app, client, team_game, 0, {"action": "play", "card": "B3", "target": 1})
    assert ("You will lead on ship 1 (strength 3 against 3)" not in page)  # a tie is no lead
    assert "You will tie for the lead on ship 1 at strength 3: nobody takes it while it is tied." in page
    page = _confirm(app, client, team_game, 0, {"action": "play", "card": "B2", "target": 3})
    assert ("You will lead on ship 3 (strength 2) and take it at the start of your next turn unless "
            "someone beats you.") in page


def test_a_view_presenter_never_holds_another_sides_hand_penalty():
    state = engine.new_game(["Ann", "Bob", "Cy"], deck=build_deck([["M5", "M2", "B1"], ["M8", "M7"], ["M6"]]))
    state, _ = play(state, "M5")
    b = board(engine.player_view(state, 1))
    assert [p["hand_cost"] is not None for p in b["players"]] == [False, True, False]


def test_in_team_play_the_confirmation_names_the_partner_who_takes_the_ship(app, client, team_game):
    _play(app, team_game, (0, {"action": "play", "card": "G1", "target": 3}))
    page = _confirm(app, client, team_game, 1, {"action": "play", "card": "G2", "target": 3})
    assert ("Your team will lead on ship 3 (strength 3): Alice, who led there, takes it at the start "
            "of their next turn unless someone beats you.") in page


def test_a_ship_left_on_the_table_at_the_end_scores_for_nobody():
    state, moves = _finished_state(lambda s, m: bool(engine.player_view(s, 0)["table"]))
    view = engine.player_view(state, 0)
    b = board(view)
    assert b["table"] and all(s["outlook"] == "The game is over: this ship scores for nobody." for s in b["table"])
    assert len(final_result(view, moves)["left"]) == len(view["table"])


@pytest.mark.parametrize("name, shown", [
    ("Ann", "Ann"), ("Nguyễn Thị Thảo", "Nguyễn Thị Thảo"),
    ("عبد الرحمن", "\u2068عبد الرحمن\u2069"), ("דוד", "\u2068דוד\u2069"),
])
def test_a_right_to_left_name_is_isolated_so_the_sentence_around_it_keeps_its_order(name, shown):
    from pbem.present.phrases import shown_name

    assert shown_name(name) == shown
