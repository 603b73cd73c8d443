"""Names each reader reads (pbem/present/names.py) and the language each reader keeps: bots
named by their kind in the reader's words and numbered, one default game name in its creator's
words, a rematch named as one and carrying every seat's language and bot kind, the From
display name, /me saving, the invitation page's language, and who reads table and partner talk.

The French and Vietnamese expectations pass once the catalogs hold
/tmp/helpers/out/names-translations.json (the coordinator applies it)."""
from __future__ import annotations

import re

import pytest
from test_seat_actions import play_to_the_end
from game_helpers import cfg_of, db_of, deliver, game_row, html_part, outbox, seats, start_game, text_part
from sqlmodel import Session, select

from pbem import i18n, links
from pbem.db import session_scope
from pbem.games import invitations, my_games, proposals, service
from pbem.games.seated import SeatedGame
from pbem.games.settings import read_settings
from pbem.mail.mime import build_message
from pbem.models import AddressPreference, Game, Invitation, Proposal, Seat, SeatKind, utcnow
from pbem.present.names import NamedSeat, reader_names
from pbem.web import talk as talk_web

ENGLISH_BOT_NAMES = ("Greedy bot", "Expert bot", "Random bot")
BOT_NAMES = {"en": ["Paul", "Greedy bot", "Greedy bot 2", "Random bot"],
             "fr": ["Paul", "Robot glouton", "Robot glouton 2", "Robot aléatoire"],
             "vi": ["Paul", "Máy tham lam", "Máy tham lam 2", "Máy ngẫu nhiên"]}


def _bot(position: int, kind: str, stored: str = "whatever was stored") -> NamedSeat:
    return NamedSeat(position, stored, SeatKind.BOT, kind)


@pytest.mark.parametrize("code", ["en", "fr", "vi"])
def test_a_bot_is_named_by_its_kind_in_the_readers_language_and_numbered_when_repeated(code):
    table = [NamedSeat(0, "Paul", SeatKind.HUMAN, None), _bot(1, "greedy"), _bot(2, "greedy"), _bot(3, "random")]
    with i18n.using(code):
        assert reader_names(table) == BOT_NAMES[code]


@pytest.mark.parametrize("code", ["en", "fr", "vi"])
def test_an_older_game_whose_bots_hold_an_english_name_reads_them_in_the_readers_language(code):
    table = [_bot(0, "greedy", "Greedy bot"), _bot(1, "greedy", "Greedy bot 2"),
             NamedSeat(2, "Paul", SeatKind.HUMAN, None), _bot(3, "random", "Random bot")]
    with i18n.using(code):
        assert reader_names(table) == [BOT_NAMES[code][1], BOT_NAMES[code][2], "Paul", BOT_NAMES[code][3]]


@pytest.mark.judges("how bots are named in each language")
@pytest.mark.parametrize("code", ["fr", "vi"])
@pytest.mark.parametrize("teams", [False, True], ids=["alone", "teams"])
def test_no_english_bot_name_reaches_a_french_or_vietnamese_player_in_a_whole_game(app, smtp_server, code, teams):
    # Set up at /new by Élodie (so named in her words); in teams the bot is her partner: its
    # hand is shown too.
    with i18n.using(code), session_scope(db_of(app)) as s:
        settings, _unread = read_settings(teams=teams)
        proposal = proposals.propose_game(s, cfg_of(app), your_name="Élodie", your_email="elodie@example.com",
                                          players="bot:greedy\nbot:random\nbot:greedy", settings=settings,
                                          language=code)
        token = links.sign_record(cfg_of(app), links.CONFIRM_SALT, proposal.id, proposal.nonce)
        game_id = proposals.confirm_proposal(s, cfg_of(app), token).proposal.game_id
    deliver(app)
    play_to_the_end(app, deliver_turns=True, game_id=game_id)
    deliver(app)
    received = smtp_server.to("elodie@example.com")
    kinds = {row.kind for row in outbox(app, game_id)}
    assert {"welcome", "game_over"} <= kinds and len(received) >= 3
    for msg in received:
        for part in (str(msg["Subject"]), str(msg["From"]), text_part(msg), html_part(msg)):
            assert not [name for name in ENGLISH_BOT_NAMES if name in part], (msg["Subject"], part[:300])
    bot_name = BOT_NAMES[code][1]
    assert any(bot_name in text_part(msg) for msg in received)
    assert any(f"{bot_name} 2" in text_part(msg) for msg in received)


@pytest.mark.parametrize("code, expected", [("en", "Korsar by mail"), ("fr", "Korsar par e-mail"),
                                            ("vi", "Korsar qua email")])
def test_the_from_display_name_is_the_services_name_in_the_recipients_language(app, smtp_server, code, expected):
    game_id = start_game(app, [f"Ann <ann@example.com> [{code}]", "Bob <bob@example.com> [en]"], seed=3)
    for row in outbox(app, game_id, to_addr="ann@example.com"):
        message, envelope = build_message(row, cfg_of(app))
        assert message["From"].addresses[0].display_name == expected  # type: ignore[attr-defined]
        assert message["From"].addresses[0].addr_spec == "korsar@korsar.test"  # the address stays MAIL_FROM's
    deliver(app)
    assert {str(m["From"]) for m in smtp_server.to("ann@example.com")} == {f"{expected} <korsar@korsar.test>"}


# ---------------------------------------------------------------- game names
@pytest.mark.parametrize("code, expected", [("en", "Paul vs Greedy bot"), ("fr", "Paul contre Robot glouton"),
                                            ("vi", "Paul đấu với Máy tham lam")])
def test_a_game_without_a_name_is_named_in_its_creators_language(app, code, expected):
    with i18n.using(code), session_scope(db_of(app)) as s:
        proposal = proposals.propose_game(s, cfg_of(app), your_name="Paul", your_email="paul@example.com",
                                          players="bot:greedy", language=code)
        assert proposal.name == expected
        token = links.sign_record(cfg_of(app), links.CONFIRM_SALT, proposal.id, proposal.nonce)
        view = proposals.confirm_proposal(s, cfg_of(app), token)  # only a bot to invite: it starts
        assert view.proposal.game_id is not None
    assert game_row(app, view.proposal.game_id).name == expected


@pytest.mark.parametrize("teams, players, expected", [
    (False, ["Ann", "Bob", "Greedy bot"], "Ann vs Bob and Greedy bot"),
    (True, ["Ann", "Bob", "Cid", "Dan"], "Ann and Bob vs Cid and Dan"),
])
def test_a_default_name_sets_partners_side_by_side(teams, players, expected):
    from pbem.present.names import default_game_name
    assert default_game_name(players, teams=teams) == expected


def test_a_long_default_name_is_cut_between_words_within_a_game_names_length():
    from pbem.games.names import MAX_GAME_NAME_LENGTH
    from pbem.present.names import default_game_name
    name = default_game_name(["Marie-Élisabeth de La Rochefoucauld", "Jean-Baptiste de Montmorency",
                              "Anne-Sophie Dûpont"], teams=False)
    assert len(name) <= MAX_GAME_NAME_LENGTH and name.endswith("…") and " vs " in name


# ---------------------------------------------------------------- rematch
def _finished(app, players: list[str]) -> int:
    game_id = start_game(app, players, seed=3)
    play_to_the_end(app, deliver_turns=True, game_id=game_id)
    return game_id


def _rematch(app, game_id: int, position: int) -> Proposal:
    with session_scope(db_of(app)) as s:
        game, all_seats = service.lock_game_with_seats(s, game_id)
        view = proposals.rematch(s, cfg_of(app), SeatedGame(game, all_seats, all_seats[position]))
        return view.proposal


def _invitations(app, proposal: Proposal) -> list[Invitation]:
    with Session(db_of(app)) as s:
        return list(s.exec(select(Invitation).where(Invitation.proposal_id == proposal.id)
                           .order_by(Invitation.position)))


def test_a_rematch_keeps_each_players_language_and_each_bots_kind(app, smtp_server):
    game_id = _finished(app, ["Élodie <elodie@example.com> [fr]", "Ánh <anh@example.com> [vi]", "bot:random"])
    rows = _invitations(app, _rematch(app, game_id, 0))
    assert [(r.kind, r.bot, r.language if r.kind == SeatKind.HUMAN else None) for r in rows] == [
        (SeatKind.HUMAN, None, "fr"), (SeatKind.HUMAN, None, "vi"), (SeatKind.BOT, "random", None)]
    invitation = [r for r in outbox(app) if r.kind == "invitation" and r.to_addr == "anh@example.com"]
    assert len(invitation) == 1 and '<html lang="vi" dir="ltr">' in invitation[0].html_body


# A rematch's database path runs on PostgreSQL in test_a_rematch_keeps_each_players_language_and_each_bots_kind.
@pytest.mark.judges("how a rematch is named in each language")
@pytest.mark.parametrize("code, first, second", [
    ("en", "Tortuga (rematch)", "Tortuga (rematch 2)"),
    ("fr", "Tortuga (revanche)", "Tortuga (revanche 2)"),
    ("vi", "Tortuga (tái đấu)", "Tortuga (tái đấu lần 2)"),
])
def test_a_rematch_is_named_as_one_in_its_askers_language_and_numbered_when_rematched_again(
        app, smtp_server, code, first, second):
    game_id = start_game(app, [f"Ann <ann@example.com> [{code}]", "bot:greedy"], seed=3, name="Tortuga")
    play_to_the_end(app, deliver_turns=True, game_id=game_id)
    proposal = _rematch(app, game_id, 0)  # only a bot to invite: the rematch starts at once
    assert proposal.name == first and game_row(app, proposal.game_id).name == first
    play_to_the_end(app, deliver_turns=True, game_id=proposal.game_id)
    again = _rematch(app, proposal.game_id, 0)
    assert again.name == second


# ---------------------------------------------------------------- languages kept
def test_saving_my_games_settings_keeps_the_language_the_address_plays_in(app, client, smtp_server):
    start_game(app, ["Élodie <elodie@example.com> [fr]", "Bob <bob@example.com>"], seed=3)
    with Session(db_of(app)) as s:
        assert s.get(AddressPreference, "elodie@example.com") is None  # nothing chosen on /me yet
    token = links.sign_address(cfg_of(app), links.MY_GAMES_SALT, "elodie@example.com")
    with session_scope(db_of(app)) as s:
        my_games.set_address_preferences(s, cfg_of(app), token, timezone="Europe/Paris", reminders=True,
                                         digest=False, play_forced=True)
    with Session(db_of(app)) as s:
        assert s.get(AddressPreference, "elodie@example.com").language == "fr"
    page = client.get(f"/me/{token}")
    assert page.status_code == 200 and '<html lang="fr">' in page.text


def _invite(app, players: str, language: str = "fr") -> Invitation:
    """A confirmed proposal of Paul's (in `language`) and the row of its one invitee."""
    with i18n.using(language), session_scope(db_of(app)) as s:
        proposal = proposals.propose_game(s, cfg_of(app), your_name="Paul", your_email="paul@example.com",
                                          players=players, language=language)
        proposals.confirm_proposal(s, cfg_of(app), links.sign_record(cfg_of(app), links.CONFIRM_SALT,
                                                                     proposal.id, proposal.nonce))
        return s.exec(select(Invitation).where(Invitation.proposal_id == proposal.id,
                                               Invitation.position == 1)).one()


@pytest.mark.parametrize("browser, expected", [("vi-VN,vi;q=0.9", "vi"), ("en-GB", "en"), ("fr-FR", "fr")])
def test_an_invitee_nobody_chose_a_language_for_reads_the_invitation_page_in_the_browsers(
        app, client, smtp_server, browser, expected):
    row = _invite(app, "Ánh <anh@example.com>")
    assert not row.language_chosen
    path = "/i/" + links.sign_record(cfg_of(app), links.INVITATION_SALT, row.id, row.nonce)
    page = client.get(path, headers={"Accept-Language": browser})
    assert f'<html lang="{expected}">' in page.text and "data-lang-switch" in page.text
    client.post(path + "/accept", headers={"Accept-Language": browser})  # the game starts: all accepted
    with Session(db_of(app)) as s:
        assert s.exec(select(Seat).where(Seat.email == "anh@example.com")).one().language == expected


def test_an_invitee_whose_language_the_creator_chose_reads_it_whatever_the_browser(app, client, smtp_server):
    row = _invite(app, "Ánh <anh@example.com> [vi]")
    assert row.language_chosen
    path = "/i/" + links.sign_record(cfg_of(app), links.INVITATION_SALT, row.id, row.nonce)
    assert '<html lang="vi">' in client.get(path, headers={"Accept-Language": "fr-FR"}).text


def test_the_pages_of_a_seat_show_no_language_switch_and_the_creators_page_shows_one(app, client, smtp_server):
    row = _invite(app, "Ánh <anh@example.com>")
    with Session(db_of(app)) as s:
        proposal = s.get(Proposal, row.proposal_id)
    manage = "/p/" + links.sign_record(cfg_of(app), links.PROPOSAL_SALT, proposal.id, proposal.nonce)
    assert "data-lang-switch" in client.get(manage).text
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=3)
    seat = seats(app, game_id)[0]
    assert "data-lang-switch" not in client.get("/g/" + links.sign_seat(cfg_of(app), game_id, 0,
                                                                         seat.link_nonce)).text


# ---------------------------------------------------------------- talk
def _box(app, game_id: int, position: int) -> dict:
    with Session(db_of(app)) as s:
        game, all_seats = s.get(Game, game_id), service.seats_of(s, game_id)
        return talk_web.talk_box(s, SeatedGame(game, all_seats, all_seats[position]), "/g/x")


@pytest.mark.parametrize("code, table, partner", [
    ("en", "The whole table reads your message.", "Only your partner reads your message."),
    ("fr", "Toute la table lit votre message.", "Seul votre partenaire lit votre message."),
    ("vi", "Lời nhắn sẽ được gửi tới cả bàn.", "Chỉ đồng đội của bạn đọc lời nhắn này."),
])
def test_table_talk_and_partner_talk_each_say_who_reads_them(app, smtp_server, code, table, partner):
    alone = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=3, table_talk=True)
    teams = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>", "Cid <cid@example.com>",
                             "Dan <dan@example.com>"], seed=3, teams=True)
    with i18n.using(code):
        assert _box(app, alone, 0)["readers"] == table
        assert _box(app, teams, 0)["readers"] == partner


@pytest.mark.parametrize("code, said", [
    ("en", "Your partner is a bot: it does not read messages."),
    ("fr", "Votre partenaire est un robot\u00a0: il ne lit pas les messages."),
    ("vi", "Đồng đội của bạn là máy: máy không đọc lời nhắn."),
])
def test_a_bot_partner_is_said_to_read_no_messages(app, smtp_server, code, said):
    game_id = start_game(app, ["Ann <ann@example.com>", "bot:expert", "Cid <cid@example.com>",
                               "Dan <dan@example.com>"], seed=3, teams=True)
    with i18n.using(code):
        box = _box(app, game_id, 0)
    assert box["closed"] == said and not box["lines"]


@pytest.mark.parametrize("code", ["fr", "vi"])
def test_a_table_talk_email_speaks_of_the_table_and_never_of_a_partner(app, smtp_server, code):
    from pbem.games import talk
    game_id = start_game(app, [f"Ann <ann@example.com> [{code}]", "Bob <bob@example.com>", "Cid <cid@example.com>"],
                         seed=3, table_talk=True)
    with session_scope(db_of(app)) as s:
        game, all_seats = service.lock_game_with_seats(s, game_id)
        talk.say(s, cfg_of(app), game, all_seats, all_seats[1], "Hello all", utcnow())
    heard = [r for r in outbox(app, game_id, to_addr="ann@example.com") if r.kind == "talk_heard"]
    assert len(heard) == 1
    partner = {"fr": "partenaire", "vi": "đồng đội"}[code]
    assert not re.search(partner, heard[0].text_body + heard[0].html_body + heard[0].subject, re.I)


@pytest.mark.parametrize("typed, expected", [("", "Paul vs Greedy bot"), ("Tortuga", "Tortuga")])
def test_a_seat_replaced_renames_a_game_named_by_its_players_only(app, smtp_server, typed, expected):
    with session_scope(db_of(app)) as s:
        settings, _unread = read_settings(name=typed)
        proposal = proposals.propose_game(s, cfg_of(app), your_name="Paul", your_email="paul@example.com",
                                          players="Ánh <anh@example.com>", settings=settings)
        assert proposal.name == (typed or "Paul vs Ánh")
        proposals.confirm_proposal(s, cfg_of(app), links.sign_record(cfg_of(app), links.CONFIRM_SALT,
                                                                     proposal.id, proposal.nonce))
        row = s.exec(select(Invitation).where(Invitation.proposal_id == proposal.id, Invitation.position == 1)).one()
        invitations.decline_invitation(s, cfg_of(app), links.sign_record(cfg_of(app), links.INVITATION_SALT,
                                                                          row.id, row.nonce))
        view = proposals.replace_invitee(s, cfg_of(app), links.sign_record(cfg_of(app), links.PROPOSAL_SALT,
                                                                            proposal.id, proposal.nonce),
                                         1, "bot:greedy")
        assert view.proposal.name == expected


@pytest.mark.parametrize("name, shown", [("عبد الرحمن", "\u2068عبد الرحمن\u2069"), ("שרה", "\u2068שרה\u2069"),
                                         ("Élodie", "Élodie"), ("Nguyễn Thị Ánh", "Nguyễn Thị Ánh")])
def test_a_right_to_left_name_is_isolated_so_the_sentence_around_it_keeps_its_order(name, shown):
    from types import SimpleNamespace

    from pbem.present.names import reader_names, seat_name
    seats = [SimpleNamespace(position=0, kind="human", name=name, bot=None),
             SimpleNamespace(position=1, kind="bot", name="Greedy bot", bot="greedy")]
    assert reader_names(seats)[0] == shown and seat_name(seats[0], seats) == shown
