"""One address, one identity (issue 23, point 3): email-validator reads every address that comes
in, offline; address literals, `%` and `!` routing, quoted local parts, letters outside ASCII
before the @ and reserved domains are refused, each with its own sentence; an internationalised
domain is stored in its ASCII form, the part before the @ as typed. Limits, the never-list and
"two seats, one address" compare the mailbox (`canonical_key`): lower case, no +tag, no dots on
Gmail. Migration 0009 gives the rows already on the never-list their key."""
from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

import pytest
from alembic import command
from game_helpers import cfg_of, db_of, seats
from sqlalchemy import text
from sqlmodel import SQLModel, select

from pbem import addresses, i18n
from pbem.addresses import canonical_key, check_address
from pbem.db import create_all, make_engine, session_scope
from pbem.games import limits, never, proposals, service, setup
from pbem.mail.delivery import deliver_due
from pbem.mail.suppression import is_suppressed, suppressed_among
from pbem.migrations import alembic_config
from pbem.models import Game, OutboxMessage, OutboxStatus, Proposal, Suppression

NOW = datetime(2026, 12, 2, 12, 0)


# ---------------------------------------------------------------- the check
@pytest.mark.parametrize("typed,reason", [
    ("root@[127.0.0.1]", addresses.DOMAIN_LITERAL),
    ("a@[10.0.0.5]", addresses.DOMAIN_LITERAL),
    ("a@[IPv6:::1]", addresses.DOMAIN_LITERAL),
    ("u%h@example.com", addresses.ROUTED),
    ("h!u@example.com", addresses.ROUTED),
    ('"a b"@example.com', addresses.QUOTED),
    ('"bob@evil.test"@example.com', addresses.QUOTED),
    ("élodie@example.com", addresses.NOT_ASCII_LOCAL),
    ("root@mail.localhost", addresses.RESERVED_DOMAIN),
    ("ann@printer.local", addresses.RESERVED_DOMAIN),
    ("ann@example.invalid", addresses.RESERVED_DOMAIN),
    ("ann@localhost", addresses.RESERVED_DOMAIN),
    ("ann@example", addresses.NOT_AN_ADDRESS),
    ("ann@@example.com", addresses.NOT_AN_ADDRESS),
    ("Ann <ann@example.com>", addresses.NOT_AN_ADDRESS),
    ("ann@exa mple.com", addresses.NOT_AN_ADDRESS),
    ("ann\x00@example.com", addresses.NOT_AN_ADDRESS),
    ("a" * 300 + "@example.com", addresses.NOT_AN_ADDRESS),
    ("", addresses.NOT_AN_ADDRESS),
])
def test_an_address_we_do_not_write_to_is_refused_with_its_own_sentence(typed, reason):
    with pytest.raises(addresses.AddressRefused) as refused:
        check_address(typed)
    assert refused.value.reason == reason
    shown = typed if len(typed) <= addresses.MAX_SHOWN else typed[:addresses.MAX_SHOWN - 1] + "…"
    assert refused.value.sentence.startswith(f"\u201c{shown}\u201d")  # said back in quotation marks


def test_a_refusal_is_said_in_the_readers_language():
    with i18n.using(i18n.PSEUDO):
        sentence = addresses.AddressRefused(addresses.DOMAIN_LITERAL, "root@[127.0.0.1]").sentence
    assert sentence.startswith(i18n.PSEUDO_OPEN) and "\u201croot@[127.0.0.1]\u201d" in sentence


def test_input_far_longer_than_an_address_is_refused_before_it_is_parsed(monkeypatch):
    def parse(*_args, **_kwargs):
        raise AssertionError("parsed")

    monkeypatch.setattr(addresses, "validate_email", parse)
    with pytest.raises(addresses.AddressRefused):
        check_address("a@" + "b" * addresses.MAX_INPUT_LENGTH)


@pytest.mark.parametrize("typed,stored", [
    ("Ann.Lee+korsar@Example.COM", "Ann.Lee+korsar@example.com"),  # the part before the @ as typed
    ("  ann@example.com ", "ann@example.com"),
    ("ann@Bücher.de", "ann@xn--bcher-kva.de"),  # an internationalised domain: its ASCII form
    ("ann@xn--bcher-kva.de", "ann@xn--bcher-kva.de"),
    ("ann@example.test", "ann@example.test"),  # reserved for tests, and delivered nowhere
])
def test_an_address_is_stored_as_typed_with_its_domain_in_ascii(typed, stored):
    assert check_address(typed) == stored


@pytest.mark.parametrize("variant,mailbox", [
    ("victim@gmail.com", "victim@gmail.com"),
    ("Victim+1@Gmail.com", "victim@gmail.com"),
    ("v.ictim@gmail.com", "victim@gmail.com"),
    ("V.i.c.t.i.m+korsar@googlemail.com", "victim@gmail.com"),
    ("hal+korsar@example.org", "hal@example.org"),
    ("Hal@EXAMPLE.org", "hal@example.org"),
    ("h.al@example.org", "h.al@example.org"),  # dots count outside Gmail
    ("ann@Bücher.de", "ann@xn--bcher-kva.de"),
    ("+x@example.org", "+x@example.org"),  # nothing before the tag: the whole is the mailbox
])
def test_the_canonical_key_is_the_mailbox(variant, mailbox):
    assert canonical_key(variant) == mailbox


@pytest.mark.parametrize("player,reason", [
    ("Root <root@[127.0.0.1]>", "we do not write to an IP address in brackets"),
    ("Eve <u%h@example.com>", "hands the mail on to another server"),
    ("Eve <h!u@example.com>", "hands the mail on to another server"),
])
def test_the_command_line_refuses_an_odd_address_with_its_sentence(app, runner, player, reason):
    result = runner.invoke(args=["create-game", "--player", "Ann <ann@example.com>", "--player", player])
    assert result.exit_code != 0 and reason in result.output
    with session_scope(db_of(app)) as session:
        assert session.exec(select(Game)).first() is None


def test_a_game_stores_an_internationalised_domain_in_its_ascii_form(app):
    with session_scope(db_of(app)) as session:
        game = service.create_game(session, cfg_of(app), ["Ann <Ann.Lee@Bücher.de>", "bot:greedy"], seed=1)
        game_id = game.id
    assert seats(app, game_id)[0].email == "Ann.Lee@xn--bcher-kva.de"


def _hidden_fields(page: str) -> dict[str, str]:
    """The form's hidden inputs (whatever the form carries besides what a visitor types)."""
    return {m["name"]: m["value"] for m in re.finditer(
        r'<input[^>]*type="hidden"[^>]*name="(?P<name>[^"]+)"[^>]*value="(?P<value>[^"]*)"', page)}


@pytest.mark.parametrize("field,typed,sentence", [
    ("your_email", "root@[127.0.0.1]", "we do not write to an IP address in brackets"),
    ("players", "Eve <u%h@example.com>", "hands the mail on to another server"),
    ("players", "Élodie <élodie@example.com>", "accented or non-Latin letters"),
])
def test_the_new_game_form_says_why_an_address_is_refused_and_mails_nobody(app, client, field, typed, sentence):
    form = {"your_name": "Ann", "your_email": "ann@example.com", "players": "bot:greedy",
            "deadline_hours": "72", "reminders": "50,85", "on_timeout": "autoplay"}
    form = {**_hidden_fields(client.get("/new").get_data(as_text=True)), **form, field: typed}
    response = client.post("/new", data=form)
    assert response.status_code == 422
    assert sentence in response.get_data(as_text=True)
    with session_scope(db_of(app)) as session:
        assert session.exec(select(Proposal)).first() is None
        assert session.exec(select(OutboxMessage)).first() is None


def test_two_seats_of_one_mailbox_are_refused():
    specs = [setup.SeatSpec("Ann", "ann@example.com"), setup.SeatSpec("Bob", "Ann+bob@Example.com")]
    assert [p.message for p in setup.setup_problems(specs)] == ["Two seats have the same email address."]


# ---------------------------------------------------------------- the never-list and the limits
def _suppress(engine, cfg, address: str) -> None:
    with session_scope(engine) as session:
        never.suppress(session, cfg, address)


@pytest.mark.parametrize("said_never,asked", [
    ("hal@example.com", "hal+korsar@example.com"),
    ("hal@example.com", "HAL+x@Example.com"),
    ("victim@gmail.com", "v.ictim+1@googlemail.com"),
    ("v.ictim@gmail.com", "victim@gmail.com"),
])
def test_the_never_list_holds_for_every_spelling_of_the_mailbox(engine, cfg, said_never, asked):
    _suppress(engine, cfg, said_never)
    with session_scope(engine) as session:
        assert is_suppressed(session, asked)
        assert suppressed_among(session, [asked, "someone@example.com"]) == {asked.lower()}
        (row,) = session.exec(select(Suppression)).all()
    assert (row.email, row.key) == (said_never, canonical_key(said_never))  # kept as given


def test_a_game_cannot_seat_a_spelling_of_an_address_that_said_never(engine, cfg):
    _suppress(engine, cfg, "hal@example.com")
    with session_scope(engine) as session, pytest.raises(setup.SetupError, match="asked never"):
        service.create_game(session, cfg, ["Ann <ann@example.com>", "Hal <hal+korsar@example.com>"], seed=1)
    with session_scope(engine) as session, pytest.raises(setup.SetupError, match="asked never"):
        proposals.invite_players(session, cfg, ["Ann <ann@example.com>", "Hal <Hal+k@example.com>"],
                                 organiser_email="boss@example.com")


ADDRESS_LIMITS = [v for v in vars(limits).values() if isinstance(v, limits.Limit) and v.per == "address"]


def test_the_emails_anyone_can_ask_for_are_counted_per_address():
    assert {limits.CONFIRMATIONS_PER_ADDRESS, limits.LINKS_PER_ADDRESS} <= set(ADDRESS_LIMITS)


def test_mail_queued_for_a_spelling_is_cancelled_once_the_mailbox_says_never(engine, cfg):
    with session_scope(engine) as session:
        service.create_game(session, cfg, ["Hal <Hal+korsar@example.com>", "bot:greedy"], seed=1)
    _suppress(engine, cfg, "hal@example.com")
    deliver_due(engine, cfg)
    with session_scope(engine) as session:
        queued = session.exec(select(OutboxMessage)).all()
    assert queued and {(row.to_addr, row.status) for row in queued} == {
        ("Hal+korsar@example.com", OutboxStatus.CANCELLED)}


@pytest.mark.parametrize("limit", ADDRESS_LIMITS, ids=lambda limit: limit.kind)
def test_spellings_of_one_mailbox_share_its_limit(engine, cfg, limit):
    allowed = limit.number(cfg)
    spellings = ["victim@gmail.com", "Victim+1@gmail.com", "v.ictim@gmail.com", "victim+2@googlemail.com",
                 "V.I.C.T.I.M@GMAIL.COM", "vic.tim+3@gmail.com"]
    with session_scope(engine) as session:
        for n in range(allowed):
            limits.take(session, cfg, limit, spellings[n % len(spellings)], now=NOW)
    with session_scope(engine) as session, pytest.raises(limits.LimitReached):
        limits.take(session, cfg, limit, "victim+11@gmail.com", now=NOW)
    with session_scope(engine) as session:  # another mailbox is counted apart
        limits.take(session, cfg, limit, "victor@gmail.com", now=NOW)


# ---------------------------------------------------------------- migration 0009
@pytest.fixture
def empty_url(database_url: str) -> Iterator[str]:
    """The test database with no tables; the schema the other tests expect is made again after."""
    def drop(url: str) -> None:
        engine = make_engine(url)
        with engine.begin() as conn:
            SQLModel.metadata.drop_all(conn)
            conn.execute(text("DROP TABLE IF EXISTS alembic_version"))
        engine.dispose()

    drop(database_url)
    yield database_url
    drop(database_url)
    engine = make_engine(database_url)
    create_all(engine)
    engine.dispose()


def test_0009_gives_every_address_already_on_the_never_list_its_mailbox_key(empty_url):
    engine = make_engine(empty_url)
    stored = ["hal+korsar@example.com", "v.ictim@gmail.com", "ann@example.org", "x.y+z@googlemail.com"]
    with engine.begin() as conn:
        command.upgrade(alembic_config(empty_url, conn), "0008")
        for email in stored:
            conn.execute(text("INSERT INTO suppression (email, created_at) VALUES (:e, '2026-01-01')"), {"e": email})
        command.upgrade(alembic_config(empty_url, conn), "0009")
    with engine.connect() as conn:
        keys = dict(conn.execute(text("SELECT email, key FROM suppression")).all())
    assert keys == {email: canonical_key(email) for email in stored}
    assert keys["v.ictim@gmail.com"] == "victim@gmail.com" and keys["x.y+z@googlemail.com"] == "xy@gmail.com"
    with engine.begin() as conn:  # and back
        command.downgrade(alembic_config(empty_url, conn), "0008")
    with engine.connect() as conn:
        assert sorted(conn.execute(text("SELECT email FROM suppression")).scalars()) == sorted(stored)
    engine.dispose()
