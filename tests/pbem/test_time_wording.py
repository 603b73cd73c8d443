"""Time as people say it: a vacation in the days the player typed, the last one counted in; a
rate-limit refusal that says what was refused and when to try again in the reader's zone; one
time-zone picker of city names in the reader's language on /me and on a game's preferences.
French and Vietnamese wording needs the catalogs of this change compiled (make translations)."""
from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any

import pytest
from clockkit import T0, mails, mover, other, seat_row, start_game, sweep
from game_helpers import cfg_of, db_of
from sqlmodel import select
from test_seat_actions import play_to_the_end

from pbem import i18n, links
from pbem.db import session_scope
from pbem.games import limits, proposals
from pbem.games.clocks.vacation import take_vacation
from pbem.games.settings import GameSettings
from pbem.links import sign_seat
from pbem.models import AddressPreference, Seat, utcnow

FIRST = datetime(2026, 12, 1, 20, 1)  # 21:01 in Paris


# ---------------------------------------------------------------- vacations, inclusive
@pytest.mark.parametrize("code, first, last, words", [
    ("fr", date(2026, 12, 10), date(2026, 12, 15), ("jeudi 10", "mardi 15 décembre 2026")),
    ("fr", date(2026, 11, 30), date(2026, 12, 1), ("lundi 30 novembre", "mardi 1er décembre 2026")),
    ("vi", date(2026, 12, 10), date(2026, 12, 15), ("Thứ Năm, ngày 10", "Thứ Ba, ngày 15 tháng 12 năm 2026")),
    ("en", date(2026, 12, 10), date(2026, 12, 15), ("Thursday, December 10", "Tuesday, December 15, 2026")),
    ("en", date(2026, 12, 31), date(2027, 1, 2), ("Thursday, December 31, 2026", "Saturday, January 2, 2027")),
])
def test_a_range_of_days_names_the_month_once_when_both_days_share_it(code, first, last, words):
    with i18n.using(code):
        assert i18n.format_day_range(first, last) == words


@pytest.fixture
def clocked(app):
    return app.extensions["korsar_db"], app.config["KORSAR"], start_game(app.extensions["korsar_db"],
                                                                         app.config["KORSAR"], deadline_hours=48)


def test_a_vacation_is_told_in_the_days_typed_with_the_last_one_counted_in(clocked, client, monkeypatch):
    import pbem.web.prefs as prefs

    monkeypatch.setattr(prefs, "utcnow", lambda: T0)
    engine, cfg, game_id = clocked
    seat = mover(engine, game_id)
    with session_scope(engine) as session:
        take_vacation(session, cfg, game_id, seat.position, date(2026, 1, 13), date(2026, 1, 15), now=T0)
    assert seat_row(engine, game_id, seat.position).vacation_end == datetime(2026, 1, 16)  # stored exclusive
    said = "Your time away: from Tuesday, January 13 to Thursday, January 15, 2026 inclusive."
    assert said in mails(engine, "vacation", seat.email)[0].text_body
    token = sign_seat(cfg, game_id, seat.position, seat.link_nonce)
    assert said[:-1] in client.get(f"/g/{token}/prefs").get_data(as_text=True)


def test_a_french_vacation_reads_as_a_french_player_writes_it(clocked):
    engine, cfg, game_id = clocked
    seat = mover(engine, game_id)
    with session_scope(engine) as session:
        session.get(Seat, seat.id).language = "fr"
    with session_scope(engine) as session:
        take_vacation(session, cfg, game_id, seat.position, date(2026, 1, 13), date(2026, 1, 15), now=T0)
    assert "Votre absence\u00a0: du mardi 13 au jeudi 15 janvier 2026 inclus." in \
        mails(engine, "vacation", seat.email)[0].text_body


def test_the_table_reads_the_days_typed_with_the_name_elided_in_french(app):
    engine, cfg = app.extensions["korsar_db"], app.config["KORSAR"]
    game_id = start_game(engine, cfg, deadline_hours=48,
                         players=["Élodie <elodie@example.com>", "Paul <paul@example.com>"])
    away, reader = mover(engine, game_id), other(engine, game_id)
    assert away.name == "Élodie"
    with session_scope(engine) as session:
        session.get(Seat, reader.id).language = "fr"
    with session_scope(engine) as session:
        take_vacation(session, cfg, game_id, away.position, date(2026, 1, 13), date(2026, 1, 15), now=T0)
    sweep(engine, cfg, T0)
    (news,) = mails(engine, "news", reader.email)
    assert f"Absence d'{away.name}\u00a0: du mardi 13 au jeudi 15 janvier 2026 inclus" in news.text_body


# ---------------------------------------------------------------- the rate limit, in words
@pytest.mark.parametrize("limit, code, zone, text", [
    (limits.GAMES_PER_CREATOR, "fr", "Europe/Paris", "Vous avez lancé trop de parties en peu de temps\u202f; "
     "réessayez après le 1er décembre à 21 h 01 (heure de Paris)."),
    (limits.GAMES_PER_CREATOR, "en", "Europe/Paris", "You have started too many games in a short time; "
     "please try again after December 1 at 9:01 PM (Paris time)."),
    (limits.INVITATIONS_PER_CREATOR, "vi", "Asia/Ho_Chi_Minh", "Bạn đã gửi quá nhiều lời mời trong thời gian "
     "ngắn; vui lòng thử lại sau 03:01 ngày 2 tháng 12 (giờ Hà Nội / TP. Hồ Chí Minh)."),
    (limits.LINKS_PER_ADDRESS, "fr", None, "Trop de liens vers vos parties ont été envoyés à cette adresse en "
     "peu de temps\u202f; réessayez après le 1er décembre à 20 h 01 (UTC)."),
    (limits.LINKS_PER_IP, "en", "Asia/Kolkata", "Too many links have been asked for from your connection in a "
     "short time; please try again after December 2 at 1:31 AM (Asia/Kolkata)."),
])
def test_a_limit_says_what_was_refused_and_when_to_try_again_in_the_readers_zone(limit, code, zone, text):
    refused = limits.LimitReached(limit, FIRST, zone)
    assert refused.text(code) == text


def _every_limit() -> list[limits.Limit]:
    from pbem.games import unasked_mail
    return [v for module in (limits, unasked_mail) for v in vars(module).values() if isinstance(v, limits.Limit)]


@pytest.mark.parametrize("limit", _every_limit(), ids=lambda limit: limit.kind)
def test_every_limit_has_a_sentence_of_its_own(limit):
    text = limits.LimitReached(limit, FIRST).text("en")
    assert text.endswith("December 1 at 8:01 PM (UTC).") and "too" in text.lower()


def _refuse_with(limit: limits.Limit) -> Any:
    def refuse(*_args: Any, **_kwargs: Any) -> None:
        raise limits.LimitReached(limit, utcnow() + timedelta(minutes=30))
    return refuse


def _remember_zone(app, email: str, zone: str) -> None:
    with session_scope(db_of(app)) as session:
        session.add(AddressPreference(email=email, language="en", timezone=zone))


def test_the_creator_confirming_one_game_too_many_reads_the_time_in_their_zone(app, client, monkeypatch):
    cfg = cfg_of(app)
    _remember_zone(app, "ann@example.com", "Europe/Paris")
    with session_scope(db_of(app)) as session:
        proposal = proposals.propose_game(session, cfg, your_name="Ann", your_email="ann@example.com",
                                          players="bot:greedy", settings=GameSettings(name="Soon"))
        token = links.sign_record(cfg, links.CONFIRM_SALT, proposal.id, proposal.nonce)
    monkeypatch.setattr(limits, "take", _refuse_with(limits.GAMES_PER_CREATOR))
    page = client.post(f"/p/{token}/confirm")
    text = page.get_data(as_text=True)
    assert page.status_code == 429 and "You have started too many games in a short time" in text
    assert "(Paris time)" in text


def test_a_page_anyone_can_post_to_never_tells_an_addresss_zone(app, client, monkeypatch):
    _remember_zone(app, "ann@example.com", "Europe/Paris")
    monkeypatch.setattr(limits, "take", _refuse_with(limits.LINKS_PER_ADDRESS))
    page = client.post("/me", data={"email": "ann@example.com"})
    text = page.get_data(as_text=True)
    assert page.status_code == 429 and "Too many links to your games" in text
    assert "(UTC)" in text and "Paris" not in text


# ---------------------------------------------------------------- one time-zone picker
def _options(page: str, name: str) -> list[tuple[str, str]]:
    select_html = page.split(f'name="{name}"')[1].split("</select>")[0]
    return re.findall(r'<option value="([^"]+)"[^>]*>([^<]+)</option>', select_html)


def _prefs_page(app, client, language: str) -> str:
    engine, cfg = db_of(app), cfg_of(app)
    game_id = start_game(engine, cfg)
    seat = mover(engine, game_id)
    with session_scope(engine) as session:
        session.get(Seat, seat.id).language = language
    token = sign_seat(cfg, game_id, seat.position, seat.link_nonce)
    return client.get(f"/g/{token}/prefs").get_data(as_text=True)


def _my_games_page(app, client, language: str) -> str:
    engine, cfg = db_of(app), cfg_of(app)
    game_id = start_game(engine, cfg)
    seat = mover(engine, game_id)
    with session_scope(engine) as session:
        session.add(AddressPreference(email=seat.email, language=language))
    path = links.my_games_url(cfg, seat.email).removeprefix(cfg.BASE_URL)
    return client.get(path).get_data(as_text=True)


@pytest.mark.parametrize("page_of", [_prefs_page, _my_games_page], ids=["game preferences", "my games"])
@pytest.mark.parametrize("language, hanoi, paris", [("fr", "Hanoï / Hô Chi Minh-Ville", "Paris"),
                                                    ("vi", "Hà Nội / TP. Hồ Chí Minh", "Paris"),
                                                    ("en", "Hanoi / Ho Chi Minh City", "Paris")])
def test_both_pages_offer_the_same_short_list_of_cities_in_the_readers_language(app, client, page_of,
                                                                                language, hanoi, paris):
    page = page_of(app, client, language)
    cities = dict(_options(page, "timezone"))
    assert cities["Asia/Ho_Chi_Minh"] == hanoi and cities["Europe/Paris"] == paris
    assert len(cities) < 30 and "other" in cities and "Africa/Abidjan" not in cities
    every = [zone for zone, _shown in _options(page, "timezone_other")]
    assert len(every) > 300 and every == sorted(every) and "data-other-zone" in page
    assert 'type="text" name="timezone"' not in page


def test_other_picks_a_zone_from_the_full_list_on_the_game_preferences(app, client):
    engine, cfg = db_of(app), cfg_of(app)
    game_id = start_game(engine, cfg)
    seat = mover(engine, game_id)
    token = sign_seat(cfg, game_id, seat.position, seat.link_nonce)
    answer = client.post(f"/g/{token}/timezone", data={"timezone": "other", "timezone_other": "Asia/Kolkata"})
    assert answer.status_code == 303 and seat_row(engine, game_id, seat.position).timezone == "Asia/Kolkata"
    page = client.get(f"/g/{token}/prefs").get_data(as_text=True)
    assert '<option value="other" selected>' in page and '<details data-other-zone open>' in page


def test_a_city_wins_over_the_full_list_on_my_games(app, client):
    engine, cfg = db_of(app), cfg_of(app)
    start_game(engine, cfg)
    path = links.my_games_url(cfg, "ann@example.com").removeprefix(cfg.BASE_URL)
    client.post(path + "/prefs", data={"timezone": "Europe/Brussels", "timezone_other": "Asia/Kolkata"})
    with session_scope(engine) as session:
        saved = session.exec(select(AddressPreference).where(AddressPreference.email == "ann@example.com")).one()
    assert saved.timezone == "Europe/Brussels"


def test_a_player_refused_on_their_seats_page_reads_the_time_in_their_seats_zone(app, client, monkeypatch):
    engine, cfg = db_of(app), cfg_of(app)
    game_id = start_game(engine, cfg, tz="Europe/Paris")
    play_to_the_end(app, game_id)  # a rematch is asked of a finished game
    seat = seat_row(engine, game_id, 0)
    monkeypatch.setattr(limits, "take", _refuse_with(limits.GAMES_PER_CREATOR))
    token = sign_seat(cfg, game_id, seat.position, seat.link_nonce)
    page = client.post(f"/g/{token}/rematch")
    text = page.get_data(as_text=True)
    assert page.status_code == 429 and "You have started too many games" in text and "(Paris time)" in text
