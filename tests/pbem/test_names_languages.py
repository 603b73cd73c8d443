"""A game's default name in its players' language on every path that starts one: the CLI's
create-game (its first human seat's language), the admin dashboard's form (the first human
seat's: the admin's English is no player's), the admin's "invite first" and the CLI's
--invite-from (the same), as /new names it in its creator's (test_names.py); and the invitation's
dates in its reader's time zone, the zone said (pbem/letters/invitations.py `reader_zone`).

The French and Vietnamese names need the catalogs compiled (make translations)."""
from __future__ import annotations

import pytest
from game_helpers import cfg_of, db_of, deliver, game_row, html_part, start_game, text_part
from sqlmodel import select

from pbem import i18n
from pbem.db import session_scope
from pbem.games import proposals
from pbem.games.settings import read_settings
from pbem.models import AddressPreference, utcnow

DEFAULTS = {"en": "Élodie vs Greedy bot", "fr": "Élodie contre Robot glouton", "vi": "Élodie đấu với Máy tham lam"}


def _remember(app, email: str, language: str, zone: str | None = None) -> None:
    with session_scope(db_of(app)) as s:
        s.add(AddressPreference(email=email, language=language, timezone=zone, updated_at=utcnow()))


@pytest.mark.parametrize("code", ["en", "fr", "vi"])
def test_the_cli_names_a_game_in_its_first_players_language(app, runner, code):
    result = runner.invoke(args=["create-game", "--player", f"Élodie <elodie@example.com> [{code}]",
                                 "--player", "bot:greedy", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert game_row(app, int(result.output.strip().splitlines()[-1])).name == DEFAULTS[code]


def test_the_cli_and_the_admin_name_a_game_in_the_language_its_first_player_chose_last(app):
    _remember(app, "elodie@example.com", "fr")
    # a bot first: the first *human* seat's language; the admin's English (the language in force) is nobody's
    game_id = start_game(app, ["bot:greedy", "Élodie <elodie@example.com>", "Bob <bob@example.com>"], seed=1)
    assert game_row(app, game_id).name == "Robot glouton contre Élodie et Bob"


def test_a_name_the_admin_typed_is_kept_as_typed(app):
    _remember(app, "elodie@example.com", "fr")
    game_id = start_game(app, ["Élodie <elodie@example.com>", "bot:greedy"], name="Friday table", seed=1)
    assert game_row(app, game_id).name == "Friday table"


def test_the_admin_dashboard_names_its_game_in_the_players_language(admin_client, admin_app):
    _remember(admin_app, "ann@example.com", "vi")
    form = {"name": "", "players-0-name": "Ann", "players-0-email": "ann@example.com", "players-0-kind": "human",
            "players-1-name": "Robo", "players-1-email": "", "players-1-kind": "bot:greedy",
            "end_settlement": "resolve", "deadline_hours": "48", "reminders": "50,90", "on_timeout": "pause"}
    response = admin_client.post("/admin/games/new", data=form)
    assert response.status_code == 303, response.get_data(as_text=True)[:2000]
    with session_scope(db_of(admin_app)) as s:
        from pbem.models import Game
        names = [g.name for g in s.exec(select(Game)).all()]
    assert names == ["Ann đấu với Máy tham lam"]


def test_a_game_the_admin_invites_first_is_named_in_its_first_invitees_language(app):
    settings, _unread = read_settings()
    with session_scope(db_of(app)) as s:
        view = proposals.invite_players(s, cfg_of(app), ["Élodie <elodie@example.com> [fr]", "bot:greedy"],
                                        settings, organiser_email="admin@example.com")
        assert view.proposal.name == DEFAULTS["fr"]


# ---------------------------------------------------------------- the invitation's dates
def _invite(app, invitee: str = "Ánh <anh@example.com> [vi]") -> None:
    settings, _unread = read_settings()
    with i18n.using("fr"), session_scope(db_of(app)) as s:
        proposal = proposals.propose_game(s, cfg_of(app), your_name="Élodie", your_email="elodie@example.com",
                                          players=invitee, settings=settings, language="fr")
        from pbem import links
        proposals.confirm_proposal(s, cfg_of(app), links.sign_record(cfg_of(app), links.CONFIRM_SALT,
                                                                     proposal.id, proposal.nonce))




@pytest.mark.parametrize("zone, said", [("Asia/Ho_Chi_Minh", "(giờ Hà Nội / TP. Hồ Chí Minh)"),
                                        ("Asia/Kolkata", "(Asia/Kolkata)")])
def test_an_invitation_says_its_expiry_in_the_zone_its_reader_chose(app, smtp_server, zone, said):
    _remember(app, "anh@example.com", "vi", zone)
    _invite(app)
    deliver(app)
    [sent] = smtp_server.to("anh@example.com")
    text, markup = text_part(sent), html_part(sent)
    assert "(UTC)" not in text and "(UTC)" not in markup
    assert "Lời mời này hết hạn lúc " in text and said in text and said in markup


def test_an_invitation_to_an_address_without_a_zone_uses_its_creators(app, smtp_server):
    _remember(app, "elodie@example.com", "fr", "Europe/Paris")
    _invite(app, "Marc <marc@example.com> [fr]")
    deliver(app)
    [sent] = smtp_server.to("marc@example.com")
    text = text_part(sent)
    assert "Cette invitation expire le " in text and "(heure de Paris)." in text and "(UTC)" not in text


def test_an_invitation_nobody_chose_a_zone_for_says_utc(app, smtp_server):
    _invite(app, "Marc <marc@example.com> [en]")
    deliver(app)
    [sent] = smtp_server.to("marc@example.com")
    assert "This invitation expires on " in text_part(sent) and "(UTC)." in text_part(sent)


def test_the_expiry_is_the_same_instant_in_every_zone():
    from datetime import datetime
    from pbem.letters.invitations import expiry_text
    when = datetime(2026, 12, 8, 19, 1)  # naive UTC, as stored
    with i18n.using("fr"):
        assert expiry_text(when, "Europe/Paris") == "8 décembre 2026 à 20 h 01 (heure de Paris)"
    with i18n.using("vi"):
        assert expiry_text(when, "Asia/Ho_Chi_Minh") == "02:01 ngày 9 tháng 12 năm 2026 (giờ Hà Nội / TP. Hồ Chí Minh)"
    with i18n.using("en"):
        assert expiry_text(when, "UTC") == "December 8, 2026, 7:01\u202fPM (UTC)"


def test_the_vietnamese_invitation_page_greets_its_reader_by_the_given_name(app, client, smtp_server):
    import re
    from urllib.parse import urlsplit
    _invite(app, "Nguyễn Thị Ánh <anh@example.com> [vi]")
    deliver(app)
    [sent] = smtp_server.to("anh@example.com")
    url = next(u for u in re.findall(r"https?://\S+", text_part(sent)) if "/i/" in u or "/invitation" in u)
    page = client.get(urlsplit(url).path).text
    assert "Ánh, " in page and "Nguyễn Thị Ánh, " not in page
