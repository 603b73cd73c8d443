"""Vacations from the player's preferences page: deadlines move by the time away, reminders
stop meanwhile, the table is told, the days are limited per game; bad input is refused."""
from __future__ import annotations

import re
from datetime import date, datetime, timedelta

import pytest
from sqlmodel import select

from clockkit import T0, game_row, mails, mover, other, play_the_turn, seat_row, start_game, sweep
from pbem.games.clocks.vacation import cancel_vacation, take_vacation
from pbem.db import session_scope
from pbem.games.errors import GameError
from pbem.links import sign_seat
from pbem.models import Notice, utcnow


@pytest.fixture
def setup(app):
    engine = app.extensions["korsar_db"]
    cfg = app.config["KORSAR"]
    game_id = start_game(engine, cfg, deadline_hours=48)  # Mon 10:00 -> Wed 10:00 UTC
    return engine, cfg, game_id


def prefs_url(cfg, seat) -> str:
    return f"/g/{sign_seat(cfg, seat.game_id, seat.position, seat.link_nonce)}"


def book(engine, cfg, game_id, position, first, last, now=T0):
    with session_scope(engine) as session:
        return take_vacation(session, cfg, game_id, position, first, last, now=now)


def test_the_prefs_page_shows_the_vacation_form_and_get_changes_nothing(client, setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    page = client.get(prefs_url(cfg, seat) + "/prefs")
    assert page.status_code == 200
    assert 'name="first_day"' in page.get_data(as_text=True)
    assert seat_row(engine, game_id, seat.position).vacation_start is None


def test_a_vacation_during_the_turn_extends_the_deadline_by_the_time_away(setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    book(engine, cfg, game_id, seat.position, date(2026, 1, 13), date(2026, 1, 14))  # Tue+Wed, 48 h
    assert game_row(engine, game_id).deadline_at == datetime(2026, 1, 14, 10, 0) + timedelta(hours=48)
    assert seat_row(engine, game_id, seat.position).vacation_days_used == 2


def test_reminders_wait_until_the_vacation_is_over(setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    book(engine, cfg, game_id, seat.position, date(2026, 1, 13), date(2026, 1, 14))
    for hour in range(0, 96, 2):
        sweep(engine, cfg, T0 + timedelta(hours=hour))
        now = T0 + timedelta(hours=hour)
        if datetime(2026, 1, 13) <= now < datetime(2026, 1, 15):
            assert not [m for m in mails(engine, "reminder") if m.created_at >= datetime(2026, 1, 13)]
    assert len(mails(engine, "reminder", seat.email)) == 2  # 50 % and 85 % of the moved deadline


def test_a_vacation_before_the_turn_moves_that_turns_deadline(setup):

    engine, cfg, game_id = setup
    waiting = other(engine, game_id)
    book(engine, cfg, game_id, waiting.position, date(2026, 1, 12), date(2026, 1, 12))  # from now to midnight
    play_the_turn(engine, cfg, game_id, T0 + timedelta(hours=1))
    assert game_row(engine, game_id).deadline_at == datetime(2026, 1, 13) + timedelta(hours=48)


def test_the_table_is_told_and_the_player_gets_a_confirmation(setup):
    engine, cfg, game_id = setup
    seat, table = mover(engine, game_id), other(engine, game_id)
    book(engine, cfg, game_id, seat.position, date(2026, 1, 13), date(2026, 1, 14))
    assert "vacation days left" in mails(engine, "vacation", seat.email)[0].text_body
    sweep(engine, cfg, T0)
    (news,) = mails(engine, "news", table.email)
    assert "Ann's time away: from Tuesday, January 13 to Wednesday, January 14, 2026 inclusive" in news.text_body


@pytest.mark.parametrize("first,last,message", [
    ("2026-01-14", "2026-01-13", "must not be before"),
    ("2026-01-01", "2026-01-03", "cannot start in the past"),
    ("2026-01-13", "2026-02-13", "vacation days left"),
    ("tomorrow", "2026-01-13", "a date like"),
])
def test_bad_dates_are_refused_with_a_clear_message_and_nothing_changes(client, setup, first, last,
                                                                        message, monkeypatch):
    import pbem.web.prefs as prefs

    monkeypatch.setattr(prefs, "utcnow", lambda: T0)
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    response = client.post(prefs_url(cfg, seat) + "/vacation", data={"first_day": first, "last_day": last})
    assert response.status_code == 422
    assert message in response.get_data(as_text=True)
    assert seat_row(engine, game_id, seat.position).vacation_start is None
    assert game_row(engine, game_id).deadline_at == T0 + timedelta(hours=48)


def test_the_days_are_limited_per_game(setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    book(engine, cfg, game_id, seat.position, date(2026, 1, 13), date(2026, 1, 22))  # 10 days
    with pytest.raises(GameError, match="only 4 vacation days left"):
        book(engine, cfg, game_id, seat.position, date(2026, 2, 1), date(2026, 2, 5),
             now=datetime(2026, 1, 30))


def test_the_form_books_a_vacation_and_redirects(client, setup, monkeypatch):
    import pbem.web.prefs as prefs

    monkeypatch.setattr(prefs, "utcnow", lambda: T0)
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    response = client.post(prefs_url(cfg, seat) + "/vacation",
                           data={"first_day": "2026-01-13", "last_day": "2026-01-14"})
    assert response.status_code == 303
    assert seat_row(engine, game_id, seat.position).vacation_end == datetime(2026, 1, 15)
    with session_scope(engine) as session:
        assert session.exec(select(Notice).where(Notice.kind == "news")).all()


def test_the_game_page_links_to_the_vacation_form(client, setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    page = client.get(prefs_url(cfg, seat)).get_data(as_text=True)
    # The page signs its own link: compare the part that does not depend on the second it was signed.
    stable = prefs_url(cfg, seat).split(".", 1)[0]
    assert re.search(f'href="{re.escape(stable)}[.][^"]+/prefs"', page)


def test_a_player_sets_their_time_zone_and_reminders_follow_it(client, setup, monkeypatch):
    import pbem.web.prefs as prefs

    monkeypatch.setattr(prefs, "utcnow", lambda: T0)
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    response = client.post(prefs_url(cfg, seat) + "/timezone", data={"timezone": "Asia/Ho_Chi_Minh"})
    assert response.status_code == 303
    assert seat_row(engine, game_id, seat.position).timezone == "Asia/Ho_Chi_Minh"
    # 50 % of 48 h = Tue 10:00 UTC = 17:00 in Ho Chi Minh City: not quiet, unchanged
    assert game_row(engine, game_id).next_reminder_at == datetime(2026, 1, 13, 10, 0)


@pytest.mark.parametrize("zone", ["Mars/Olympus", "", "<script>"])
def test_an_unknown_time_zone_is_refused(client, setup, zone):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    response = client.post(prefs_url(cfg, seat) + "/timezone", data={"timezone": zone})
    assert response.status_code == 422
    assert "is not a time zone" in response.get_data(as_text=True)
    assert "<script>" not in response.get_data(as_text=True)
    assert seat_row(engine, game_id, seat.position).timezone == "UTC"


def cancel(engine, cfg, game_id, position, now):
    with session_scope(engine) as session:
        return cancel_vacation(session, cfg, game_id, position, now=now)


def test_a_vacation_booked_by_mistake_is_cancelled_with_its_days_and_its_extension(setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    deadline = game_row(engine, game_id).deadline_at
    book(engine, cfg, game_id, seat.position, date(2026, 1, 13), date(2026, 1, 14))
    cancel(engine, cfg, game_id, seat.position, now=T0 + timedelta(hours=1))
    back = seat_row(engine, game_id, seat.position)
    assert (back.vacation_start, back.vacation_end, back.vacation_days_used) == (None, None, 0)
    assert game_row(engine, game_id).deadline_at == deadline


def test_a_player_back_early_ends_the_vacation_now_and_gets_the_rest_of_the_days_back(setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    book(engine, cfg, game_id, seat.position, date(2026, 1, 13), date(2026, 1, 14))  # 48 h away
    back_at = datetime(2026, 1, 13, 12, 0)  # 12 h into it: 36 h not taken
    cancel(engine, cfg, game_id, seat.position, now=back_at)
    back = seat_row(engine, game_id, seat.position)
    assert back.vacation_end == back_at and back.vacation_days_used == 0.5
    # Wed 10:00 + 48 h extension - 36 h not taken
    assert game_row(engine, game_id).deadline_at == datetime(2026, 1, 14, 10, 0) + timedelta(hours=12)
    with session_scope(engine) as session:
        news = session.exec(select(Notice.text).where(Notice.kind == "news")).all()
    assert any("is back" in text for text in news)


def test_cancelling_without_a_vacation_is_refused_and_changes_nothing(client, setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    with pytest.raises(GameError, match="no vacation"):
        cancel(engine, cfg, game_id, seat.position, now=T0)
    response = client.post(prefs_url(cfg, seat) + "/vacation/cancel")
    assert response.status_code == 409 and "no vacation booked" in response.get_data(as_text=True)


def test_a_vacation_of_a_finished_game_is_not_cancelled_and_nobody_is_told(setup):
    from pbem.games import lifecycle

    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    book(engine, cfg, game_id, seat.position, date(2026, 1, 13), date(2026, 1, 14))
    with session_scope(engine) as session:
        lifecycle.abort_game(session, cfg, game_id, now=T0 + timedelta(hours=1), actor="admin")
    with pytest.raises(GameError, match="over"):
        cancel(engine, cfg, game_id, seat.position, now=T0 + timedelta(hours=2))
    with session_scope(engine) as session:
        news = session.exec(select(Notice.text).where(Notice.kind == "news")).all()
    assert not any("is back" in text for text in news)


def test_the_prefs_page_offers_to_cancel_a_booked_vacation_with_a_post_button(client, setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    now = utcnow()
    book(engine, cfg, game_id, seat.position, now.date() + timedelta(days=2), now.date() + timedelta(days=3),
         now=now)
    page = client.get(prefs_url(cfg, seat) + "/prefs").get_data(as_text=True)
    assert re.search(r'<form method="post" action="/g/[^"]+/vacation/cancel">', page)
    assert seat_row(engine, game_id, seat.position).vacation_start is not None  # GET changed nothing
    assert client.post(prefs_url(cfg, seat) + "/vacation/cancel").status_code == 303
    assert seat_row(engine, game_id, seat.position).vacation_start is None
