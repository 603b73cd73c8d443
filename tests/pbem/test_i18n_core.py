"""The language machinery (pbem/i18n.py): one language per context, each email in its
recipient's, dates in the seat's zone and locale, and Vietnamese subjects through SMTP."""
from __future__ import annotations

import email
import email.policy
import threading
from datetime import datetime

import pytest
from game_helpers import deliver, outbox, start_game
from hypothesis import given
from hypothesis import strategies as st

from pbem import i18n
from pbem.models import Seat
from pbem.schedule import local_time_text

WHEN = datetime(2026, 12, 4, 9, 7)  # naive UTC: 16:07 in Ho Chi Minh City


def _seat(language: str, zone: str = "UTC") -> Seat:
    return Seat(game_id=1, position=0, name="Thảo", language=language, timezone=zone)


# ---------------------------------------------------------------- the current language
@pytest.mark.parametrize("given_code, code", [("fr-FR", "fr"), ("VI_vn", "vi"), ("en", "en"), ("de", "en"),
                                              (None, "en"), ("", "en"), (i18n.PSEUDO, i18n.PSEUDO)])
def test_a_code_is_read_as_a_language_we_speak_or_english(given_code, code):
    assert i18n.normalise(given_code) == code


def test_using_sets_the_language_for_its_block_only():
    with i18n.using("fr"):
        with i18n.using("vi"):
            assert i18n.current() == "vi"
        assert i18n.current() == "fr"
    assert i18n.current() == i18n.DEFAULT


def test_a_thread_starts_in_english_whatever_another_speaks():
    seen = []
    with i18n.using("vi"):
        thread = threading.Thread(target=lambda: seen.append(i18n.current()))
        thread.start()
        thread.join()
    assert seen == [i18n.DEFAULT]


def test_a_function_speaking_to_a_seat_runs_in_its_language_then_restores_the_callers():
    @i18n.speaking_to("listener")
    def heard(session: object, listener: Seat | None) -> str:
        return i18n.current()

    with i18n.using("fr"):
        assert heard(None, _seat("vi")) == "vi"
        assert heard(None, listener=_seat("en")) == "en"
        assert heard(None, None) == "en"  # nobody's seat: an admin's email, in English
        assert i18n.current() == "fr"


def test_the_pseudo_locale_marks_every_translated_string_and_fills_its_placeholders():
    with i18n.using(i18n.PSEUDO):
        assert i18n.gettext("Your turn in %(game)s", game="Ha Long") == "⟦Your turn in Ha Long⟧"
        assert i18n.ngettext("%(num)s card", "%(num)s cards", 3) == "⟦3 cards⟧"
    assert i18n.gettext("Your turn in %(game)s", game="Ha Long") == "Your turn in Ha Long"


@given(st.integers(min_value=0, max_value=10**6))
def test_english_plurals_are_the_singular_for_one_only(n):
    assert i18n.ngettext("%(num)s card", "%(num)s cards", n) == (f"{n:,} card" if n == 1 else f"{n:,} cards")


def test_numbers_are_written_as_the_language_writes_them():
    with i18n.using("fr"):
        assert i18n.format_number(2.5) == "2,5" and i18n.format_number(14.0) == "14"
    assert i18n.format_number(2.5) == "2.5"


# ---------------------------------------------------------------- dates
def test_dates_are_in_the_seats_zone_and_language():
    with i18n.using("fr"):
        assert i18n.format_datetime(WHEN, "Asia/Ho_Chi_Minh") == "4 décembre 2026 à 16 h 07"
    with i18n.using("vi"):
        assert i18n.format_datetime(WHEN, "Asia/Ho_Chi_Minh") == "16:07 ngày 4 tháng 12 năm 2026"
        assert i18n.format_date(WHEN, "Asia/Ho_Chi_Minh") == "ngày 4 tháng 12 năm 2026"


FIRST = datetime(2026, 12, 1, 20, 1)  # 21:01 in Paris


@pytest.mark.parametrize("code, style, text", [
    ("fr", "full", "mardi 1er décembre 2026 à 21 h 01"),
    ("fr", "long", "1er décembre 2026 à 21 h 01"),
    ("fr", "day", "1er décembre à 21 h 01"),
    ("vi", "full", "21:01, Thứ Ba, ngày 1 tháng 12 năm 2026"),
    ("vi", "long", "21:01 ngày 1 tháng 12 năm 2026"),
    ("vi", "day", "21:01 ngày 1 tháng 12"),
    ("en", "day", "December 1 at 9:01 PM"),
])
def test_each_language_writes_a_date_and_time_as_its_readers_do(code, style, text):
    with i18n.using(code):
        assert i18n.format_datetime(FIRST, "Europe/Paris", style) == text


def test_the_first_of_a_month_is_1er_in_french_only():
    with i18n.using("fr"):
        assert i18n.format_date(FIRST, "Europe/Paris") == "1er décembre 2026"
        assert i18n.format_date(datetime(2026, 12, 11, 12), "Europe/Paris") == "11 décembre 2026"
    with i18n.using("en"):
        assert i18n.format_date(FIRST, "Europe/Paris") == "December 1, 2026"


def test_the_english_deadline_text_is_unchanged():
    assert local_time_text(WHEN, _seat("en")) == "Friday 4 December 2026, 09:07 (UTC)"
    assert local_time_text(WHEN, _seat("en", "Asia/Ho_Chi_Minh")) == "Friday 4 December 2026, 16:07 (Asia/Ho_Chi_Minh)"


@pytest.mark.parametrize("code, text", [("fr", "vendredi 4 décembre 2026 à 16 h 07"),
                                        ("vi", "16:07, Thứ Sáu, ngày 4 tháng 12 năm 2026")])
def test_a_seat_that_set_its_zone_reads_its_local_time_without_utc(code, text):
    with i18n.using(code):
        assert local_time_text(WHEN, _seat(code, "Asia/Ho_Chi_Minh")) == text


def test_a_seat_without_a_zone_is_told_the_time_is_utc():
    with i18n.using("fr"):
        assert local_time_text(WHEN, _seat("fr")) == "vendredi 4 décembre 2026 à 9 h 07 (UTC)"


# ---------------------------------------------------------------- subjects through SMTP
def test_a_vietnamese_subject_is_rfc2047_encoded_and_read_back_exactly(app, smtp_server):
    name = "Tàu buôn ở Hội An: Đô Đốc và Thuyền Trưởng trên biển Đông, ván thứ hai mươi mốt"
    game_id = start_game(app, ["Thảo <thao@example.com> [vi]", "Ann <ann@example.com>"], seed=3, name=name)
    deliver(app)
    rows = {row.message_id: row for row in outbox(app, game_id)}
    checked = 0
    for raw in smtp_server.raw:
        headers = raw.split(b"\r\n\r\n", 1)[0].decode("ascii")  # every header line is ASCII
        folded = headers.split("\r\nSubject: ", 1)[1].split("\r\n")
        subject_lines = [folded[0]] + [line for line in _continued(folded[1:])]
        assert all(len(line) <= 78 for line in subject_lines)
        assert "=?utf-8?" in subject_lines[0].lower()
        message = email.message_from_bytes(raw, policy=email.policy.default)
        assert message["Subject"] == rows[message["Message-ID"]].subject  # every character back
        assert name in message["Subject"]
        checked += 1
    assert checked == len(rows) >= 2


def _continued(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        if not line.startswith((" ", "\t")):
            break
        out.append(line)
    return out
