"""The emails: every template renders with sample data; the turn email holds the hand, the
table, the piles, the news since the last turn and one link per legal move (its sentence on
one line, the URL on the next); HTML is inline-styled, script-free and names colours in words;
hostile player names are escaped or refused and never reach a header."""
from __future__ import annotations

import re
from datetime import datetime

import engine
import pytest
from game_helpers import (cfg_of, db_of, deck_with_hands, deliver, game_row, hand_sections,
                          html_part, move_links, outbox, seats, start_game, text_part)

from pbem import links
from pbem.db import session_scope
from pbem.games import errors, service
from pbem import store
from pbem.letters import notify
from pbem.mail.render import email_names, one_line, render_email
from pbem.models import Game, Seat

NOW = datetime(2026, 1, 5, 12, 0)


def _mid_game_context(app) -> dict:
    """A team game a few moves in, for Ann (seat 0), with what every kind adds (SAMPLES)."""
    context = _seat_base(app)
    for sample in SAMPLES.values():
        context.update(sample)
    return context


def _seat_base(app) -> dict:
    """A team game a few moves in (ships, sides, captains, a partner), for Ann (seat 0): what
    every email to a seat shows."""
    deck = deck_with_hands(["M5", "B2", "B3", "BC", "G1", "M3"], ["M4", "R2", "R3", "G2", "K1", "K2"],
                           ["M6", "G3", "G4", "K3", "R1", "R4"], ["M2", "B1", "B4", "K4", "G2", "AD"])
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>",
                               "Cid <cid@example.com>", "Dan <dan@example.com>"],
                         teams=True, deck=deck, now=NOW)
    with session_scope(db_of(app)) as s:
        for pos, move in [(0, {"action": "play", "card": "M5"}), (1, {"action": "draw"}),
                          (2, {"action": "play", "card": "G3", "target": 1}),
                          (3, {"action": "draw"})]:
            service.apply_game_move(s, cfg_of(app), game_id, pos, move, now=NOW)
    with session_scope(db_of(app)) as s:
        game = s.get(Game, game_id)
        seat = s.exec(service.select(Seat).where(Seat.game_id == game_id, Seat.position == 0)).one()
        context = notify.seat_context(s, cfg_of(app), game, seat, store.load_state(game), since=0)
    context.update({"seat": seat, "base_url": "http://korsar.test", "unsubscribe_url": "http://korsar.test/u/x"})
    return context


# What each kind adds to a seat's context (pbem/letters/: emails.py for the clocks' emails,
# invitations.py for games being set up): a new email kind brings its sample here.
_INVITING = {
    "creator": {"name": "Ann"}, "not_me_url": "http://korsar.test/not-me/x", "organised": False,
    "players": [{"name": "Ann", "note": "you", "bot": False, "creator": True}],
    "teams": "Every player plays for themselves.", "clock": ["Time for each move: 72 hours."],
    "never_url": "http://korsar.test/never/x", "home_url": "http://korsar.test/"}
SAMPLES: dict[str, dict] = {
    "welcome": {}, "turn": {}, "game_over": {}, "reply_played": {}, "reply_refused": {}, "talk_heard": {},
    "reminder": {"time_left": "3 hours", "deadline_local": "Monday 5 January 15:00 (UTC)",
                 "on_timeout": "autoplay"},
    "attacked": {"lines": ["Bob drew a card."]}, "news": {"lines": ["Bob drew a card."]},
    "digest": {"lines": ["Bob drew a card."]},
    "notice": {"subject": "A notice", "lines": ["Bob drew a card."]},
    "paused": {"reason": "timeout", "waiting_for": Seat(name="Ann", position=0), "for_admin": False,
               "admin_url": "http://korsar.test/admin/games/1"},
    "resumed": {}, "seat_to_bot": {"reason": "timeout"}, "timeout_autoplay": {"move_text": "Draw a card"},
    "vacation": {"start_local": "Monday", "end_local": "Friday", "days_left": "3 vacation days"},
    "confirm_game": {**_INVITING, "confirm_url": "http://korsar.test/p/x/confirm", "valid_hours": "24 hours",
                     "invites_anyone": True},
    "invitation": {**_INVITING, "you": "Ann", "answer_url": "http://korsar.test/i/x",
                   "expires": "March 9, 2026, 10:00 AM"},
    "invitation_declined": {**_INVITING, "missing": "Bob", "manage_url": "http://korsar.test/p/x"},
    "invitations_expired": {**_INVITING, "missing": "Bob", "manage_url": "http://korsar.test/p/x"},
    "invitation_bounced": {**_INVITING, "missing": "Bob", "manage_url": "http://korsar.test/p/x"},
    "proposal_cancelled": {**_INVITING, "you": "Ann", "accepted": True},
    "my_games_link": {**_INVITING, "my_games_url": "http://korsar.test/me/x", "valid_days": "7 days"},
}


def test_every_email_template_renders_with_sample_data(app):
    names = email_names()
    assert {"welcome", "turn", "game_over"} <= set(names)
    assert set(SAMPLES) == set(names), "each email kind has its sample (SAMPLES)"
    context = _seat_base(app)
    for name in names:
        email = render_email(name, "ann@example.com", {**context, **SAMPLES[name]})
        assert email.subject and "\n" not in email.subject and len(email.subject) <= 200
        assert email.text_body.strip() and email.html_body.strip()
        html = email.html_body.lower()
        assert "<script" not in html and "<link" not in html and "<img" not in html
        assert "<style" not in html  # inline styles only (clients drop <style>)
        assert not re.search(r'src="http', html)


def test_a_ship_on_the_table_is_named_by_its_gold_not_by_its_card_name_again(app):
    text = render_email("turn", "ann@example.com", _mid_game_context(app)).text_body
    assert "Ship 1 (5 gold), owner you" in text
    assert not re.search(r"Ship \d+: Merchant ship", text)


def test_the_turn_email_shows_hand_table_piles_news_and_one_link_per_legal_move(app):
    context = _mid_game_context(app)
    email = render_email("turn", "ann@example.com", context)
    text = email.text_body
    board = context["board"]
    assert "YOUR HAND" in text and "HAND OF YOUR PARTNER, Bob" in text
    for card in board["hand"]:
        assert f"  - {card.name}" in text
    assert "Ship 1 (5 gold), owner you" in text
    assert "Cid and Dan: Green, strength 3 (strongest) - Green 3" in text
    assert "SINCE YOUR LAST TURN" in text and "Cid played Green 3 on your ship 1 (5 gold)." in text
    assert f"Draw pile: {board['draw_pile']} cards." in text
    links = move_links(text)
    assert [sentence for sentence, _ in links] == [m["text"] for m in context["moves"]]
    assert len(links) == len(context["moves"]) == len({p for _, p in links})
    assert "Defend your ship 1 (5 gold) with Blue 2" in [s for s, _ in links]
    html = email.html_body
    assert html.count("data-move-link") == len(links)
    sections = hand_sections(html)
    assert set(sections.hands) == {("own", "0"), ("partner", "1")}


def test_html_cards_name_their_colour_in_words(app):
    html = render_email("turn", "ann@example.com", _mid_game_context(app)).html_body
    chip = r'data-card="([A-Z0-9]+)"[^>]*>(?:<span aria-hidden="true"[^>]*>[^<]*</span> )?([^<]+)<'  # mark, name
    for code, name in re.findall(chip, html):
        assert name == engine.card_name(code)
        if code[0] in "GBRK":
            assert name.split()[0] in {"Green", "Blue", "Red", "Black"}


def test_welcome_email_has_the_hand_and_a_rules_summary_and_no_move_links(app, smtp_server):
    start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=2)
    deliver(app)
    welcome = smtp_server.to("bob@example.com")[0]
    text = text_part(welcome)
    assert welcome["Subject"] == "[Korsar] Ann vs Bob: welcome, Bob"
    assert "YOUR HAND" in text and "THE RULES IN SHORT" in text and "Ann moves first." in text
    assert move_links(text) == []


def test_bot_seats_get_no_email(app):
    start_game(app, ["Ann <ann@example.com>", "bot:random", "bot:greedy"], seed=2)
    assert {m.to_addr for m in outbox(app)} == {"ann@example.com"}


HOSTILE = [
    '<script>alert("x")</script>',
    'Bob" onmouseover="alert(1)',
    "<b>Eve</b> &amp; co",
    "O'Hara <img src=x>",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_are_escaped_in_emails_and_pages(app, client, smtp_server, name):
    game_id = start_game(app, [f"{name} <eve@example.com>", "Ann <ann@example.com>"], seed=5)
    deliver(app)
    for msg in smtp_server.messages:
        html = html_part(msg)
        assert name not in html and "<script" not in html.lower() and "<img" not in html.lower()
        assert msg["To"].addresses[0].addr_spec in {"eve@example.com", "ann@example.com"}
        assert msg["Bcc"] is None and "\n" not in str(msg["Subject"])
    ann = text_part(smtp_server.to("ann@example.com")[0])
    assert name in ann  # plain text shows the name as typed
    for seat in seats(app, game_id):
        page = client.get("/g/" + links.sign_seat(cfg_of(app), game_id, seat.position, seat.link_nonce))
        assert name not in page.text and "<script>alert" not in page.text
    path = move_links(text_part(smtp_server.to("eve@example.com")[-1]))[0][1]
    confirm = client.get(path)
    assert confirm.status_code == 200 and "<script>alert" not in confirm.text


@pytest.mark.parametrize("name,reason", [
    ("Eve\r\nBcc: all@example.com", "control characters"),
    ("Eve\nX", "control characters"),
    ("Eve\u202e", "control characters"),
    ("E" * 41, "at most 40"),
])
def test_names_with_line_breaks_or_too_long_are_refused(app, name, reason):
    with pytest.raises(errors.GameError, match=reason):
        start_game(app, [f"{name} <eve@example.com>", "Ann <ann@example.com>"])
    assert outbox(app) == []


def test_subjects_are_one_line_and_limited():
    assert one_line("a\r\nb\n  c") == "a b c"
    assert len(one_line("x" * 500)) == 200


def test_the_game_name_is_validated_like_a_player_name(app):
    with pytest.raises(errors.GameError):
        start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], name="Game\r\nBcc: x")
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], name="Friday <b>")
    assert game_row(app, game_id).name == "Friday <b>"
    deliver(app)  # the turn email is written when it is sent
    assert all("Friday &lt;b&gt;" in m.html_body for m in outbox(app))


def test_the_turn_email_shows_battles_holds_and_captains_in_words(app):
    """Ann's ship 1 is attacked by Bob's Blue 3, Ann answers with Green 1 (waiting time puts
    the ship on hold), then Bob plays the Blue captain on it."""
    deck = deck_with_hands(["M5", "G1", "G2", "R1", "K1", "M2"], ["B3", "BC", "B2", "R2", "K2", "M3"])
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], deck=deck,
                         options={"waiting_time": "on"})
    with session_scope(db_of(app)) as s:
        for pos, move in [(0, {"action": "play", "card": "M5"}),
                          (1, {"action": "play", "card": "B3", "target": 1}),
                          (0, {"action": "play", "card": "G1", "target": 1})]:
            service.apply_game_move(s, cfg_of(app), game_id, pos, move)
    deliver(app)  # turn emails are written when they are sent
    bob = outbox(app, to_addr="bob@example.com", kind="turn")[-1].text_body
    assert "Ship 1 (5 gold), owner Ann" in bob
    assert "You: Blue, strength 3 (strongest) - Blue 3" in bob
    assert "Ann: Green, strength 1 - Green 1" in bob
    assert "On hold until Ann's next turn." in bob
    assert "Ann played Green 1 on their own ship 1 (5 gold)." in bob
    assert "Play the Blue captain on Ann's ship 1 (5 gold)" in [s for s, _ in move_links(bob)]
    with session_scope(db_of(app)) as s:
        service.apply_game_move(s, cfg_of(app), game_id, 1, {"action": "play", "card": "BC", "target": 1})
    deliver(app)
    ann = outbox(app, to_addr="ann@example.com", kind="turn")[-1]
    assert "Leading: Blue captain of Bob" in ann.text_body
    assert "Bob played the Blue captain on your ship 1 (5 gold)." in ann.text_body
    assert 'data-card="BC"' in ann.html_body and "</span> Blue captain<" in ann.html_body


def test_since_your_last_turn_shows_the_latest_lines_and_counts_the_earlier_ones(app):
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=3)
    with session_scope(db_of(app)) as s:
        for _ in range(40):  # both players draw or play, well past the 20 lines shown
            game = s.get(Game, game_id)
            state = store.load_state(game)
            if state.finished:
                break
            service.apply_game_move(s, cfg_of(app), game_id, state.to_move, engine.legal_moves(state)[0])
    with session_scope(db_of(app)) as s:
        game = s.get(Game, game_id)
        ann = service.seats_of(s, game_id)[0]
        context = notify.seat_context(s, cfg_of(app), game, ann, store.load_state(game), since=0)
        everything = notify.history(notify.move_events(s, game), engine.player_view(store.load_state(game), 0), 0)
    assert len(everything) > notify.SINCE_SHOWN
    assert context["since"] == everything[-notify.SINCE_SHOWN:]
    assert context["since_earlier"] == len(everything) - notify.SINCE_SHOWN
    text = render_email("turn", "ann@example.com", {**_mid_game_context(app), **context}).text_body
    assert f"{context['since_earlier']} earlier events are on your game page" in text
