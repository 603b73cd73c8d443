"""Self-service that cannot be turned against anyone (issue 23, points 1, 2, 6, 7 and 8a): no
page or email shows a player another person's address; a stranger's requests mail an address
at most its daily budget, plainly, with "I did not ask for this"; nobody else can use up an
address's quotas; neither /new nor /me tells who plays or who said never, by their answer or by
the work they do; one /new form makes one proposal. On SQLite and PostgreSQL (`--db`)."""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from game_helpers import cfg_of, db_of, deliver, outbox, seats, start_game
from sqlalchemy import event
from sqlmodel import Session, col, select

from pbem import links
from pbem.db import session_scope
from pbem.games import my_games, proposals, unasked_mail
from pbem.games.limits import LimitReached
from pbem.letters import invitations as letters
from pbem.mail import suppression
from pbem.models import (AddressStanding, Game, GameStatus, Invitation, InvitationStatus, OutboxStatus,
                         Proposal, ProposalStatus, utcnow)

ANN, BOB, CAT, DAN = "ann@example.com", "bob@example.com", "cat@example.com", "dan@example.com"
ADDRESS = re.compile(r"[\w.+%-]+@[\w-]+(?:\.[\w-]+)+")
SERVICE_ADDRESSES = re.compile(r"^(?:korsar|play\+.*|talk\+.*)@korsar\.test$")  # From, Reply-To
CONFIRM_SUBJECT = "[Korsar] Confirm your game: "


# Every link is signed with one timestamp: a link the test makes is the one an email holds.
pytestmark = pytest.mark.usefixtures("links_signed_at_one_instant")


def form(**changes: str) -> dict[str, str]:
    return {"your_name": "Ann", "your_email": ANN, "players": f"Bob <{BOB}>\nbot:greedy", "name": "Friday game",
            "deadline_hours": "72", "reminders": "50,85", "on_timeout": "autoplay",
            "form_id": proposals.new_form_id(), **changes}


def rows(app: Any, model: Any) -> list[Any]:
    with Session(db_of(app)) as s:
        return list(s.exec(select(model)))


def proposal_of(app: Any, creator: str = ANN) -> Proposal:
    return next(p for p in rows(app, Proposal) if p.creator_email == creator)


def path(app: Any, url: str) -> str:
    return url.removeprefix(cfg_of(app).BASE_URL)


def confirm_path(app: Any, proposal: Proposal) -> str:
    return path(app, links.confirm_url(cfg_of(app), proposal.id, proposal.nonce))


def invitation_path(app: Any, proposal: Proposal, email: str) -> str:
    row = next(i for i in rows(app, Invitation) if i.proposal_id == proposal.id and i.email == email)
    return path(app, links.invitation_url(cfg_of(app), row.id, row.nonce))


def seat_path(app: Any, game_id: int, position: int) -> str:
    return "/g/" + links.sign_seat(cfg_of(app), game_id, position, seats(app, game_id)[position].link_nonce)


def not_me_path(app: Any, email: str) -> str:
    return path(app, letters.not_me_url(cfg_of(app), email))


def finished_game(app: Any, players: list[str]) -> int:
    game_id = start_game(app, players, seed=1)
    with session_scope(db_of(app)) as s:
        game = s.get(Game, game_id)
        game.status = GameStatus.FINISHED
        s.add(game)
    return game_id


def received(smtp_server: Any, address: str) -> list[Any]:
    return smtp_server.to(address)


def subjects(smtp_server: Any, address: str) -> list[str]:
    return [str(m["Subject"]) for m in received(smtp_server, address)]


def bodies(message: Any) -> str:
    return "\n".join(part.get_content() for part in message.walk() if part.get_content_maintype() == "text")


def never(app: Any, email: str) -> None:
    with session_scope(db_of(app)) as s:
        suppression.add(s, email)


def block(app: Any, client: Any, email: str) -> None:
    assert client.post(not_me_path(app, email), data={"action": "block"}).status_code == 200


# ---------------------------------------------------------------- 1. nobody is shown another's address
def test_a_rematch_of_an_admins_game_shows_its_creator_names_not_addresses(app, client):
    game_id = finished_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>", f"Cat <{CAT}>"])  # an admin typed these
    response = client.post(seat_path(app, game_id, 0) + "/rematch")
    assert response.status_code == 303
    page = client.get(path(app, response.headers["Location"])).text
    assert "Bob" in page and "Cat" in page
    assert BOB not in page and CAT not in page


def test_the_creators_page_shows_back_the_addresses_the_creator_typed_and_no_other(app, client):
    game_id = finished_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"])
    manage = path(app, client.post(seat_path(app, game_id, 0) + "/rematch").headers["Location"])
    proposal = proposal_of(app)
    client.post(invitation_path(app, proposal, BOB) + "/decline")
    client.post(manage + "/replace/1", data={"replacement": "friend", "friend_name": "Dan", "friend_email": DAN})
    page = client.get(manage).text
    assert DAN in page and BOB not in page  # Ann typed Dan's address, not Bob's


def test_an_invitation_names_who_invites_but_shows_no_address_of_theirs(app, client, smtp_server):
    client.post("/new", data=form())
    client.post(confirm_path(app, proposal_of(app)))
    deliver(app)
    (invitation,) = received(smtp_server, BOB)
    assert "Ann invites you" in bodies(invitation) and ANN not in bodies(invitation)


def test_no_email_of_a_game_set_up_and_played_shows_a_player_another_players_address(app, client, smtp_server):
    """Every email of a game's life, from /new to its rematch (confirmation, invitations, a
    decline, a replacement, welcome, turns, cancellations, "my games"), each read by its reader."""
    players = f"Bob <{BOB}>\nCat <{CAT}>"
    client.post("/new", data=form(players=players, table_talk="on"))
    proposal = proposal_of(app)
    client.post(confirm_path(app, proposal))
    client.post(invitation_path(app, proposal, BOB) + "/decline")
    manage = path(app, links.proposal_url(cfg_of(app), proposal.id, proposal.nonce))
    client.post(manage + "/replace/1", data={"replacement": "friend", "friend_name": "Dan", "friend_email": DAN})
    for address in (CAT, DAN):
        client.post(invitation_path(app, proposal, address) + "/accept")
    game_id = proposal_of(app).game_id
    assert game_id is not None
    with session_scope(db_of(app)) as s:
        game = s.get(Game, game_id)
        game.status = GameStatus.FINISHED
        s.add(game)
    manage = path(app, client.post(seat_path(app, game_id, 1) + "/rematch").headers["Location"])
    client.get(manage + "/cancel")
    client.post(manage + "/cancel")
    for address in (ANN, BOB, CAT, DAN):
        client.post("/me", data={"email": address})
    deliver(app)
    everyone = {ANN, BOB, CAT, DAN}
    for message, (_sender, recipients) in zip(smtp_server.messages, smtp_server.envelopes):
        shown = {a.lower() for a in ADDRESS.findall(bodies(message)) if not SERVICE_ADDRESSES.match(a.lower())}
        assert shown <= set(recipients), (message["Subject"], shown - set(recipients))
    assert {r for _s, rs in smtp_server.envelopes for r in rs} == everyone


# ---------------------------------------------------------------- 2. a stranger mails an address a little
def test_a_strangers_requests_mail_an_address_its_daily_budget_and_no_more(app, client, smtp_server):
    start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=7)  # Ann plays: "my games" links reach her
    deliver(app)
    before = len(received(smtp_server, ANN))
    answers = [client.post("/new", data=form(players=f"bot:greedy\nP{n} <p{n}@example.com>")) for n in range(3)]
    answers += [client.post("/me", data={"email": ANN}) for _ in range(3)]
    assert [a.status_code for a in answers] == [303] * 3 + [200] * 3  # the same answers as ever
    deliver(app)
    assert len(received(smtp_server, ANN)) - before == cfg_of(app).LIMIT_UNASKED_PER_ADDRESS_DAY == 3
    cancelled = [m for m in outbox(app, to_addr=ANN) if m.status == OutboxStatus.CANCELLED]
    assert len(cancelled) == 3 and {m.last_error for m in cancelled} == {unasked_mail.OVER_BUDGET}


@pytest.mark.parametrize("spellings", [
    ["victim@example.com", "victim+1@example.com", "Victim+korsar@Example.com"],
    ["victim@gmail.com", "v.ictim@gmail.com", "vic.tim+x@googlemail.com"],
])
def test_one_mailbox_has_one_budget_however_its_address_is_spelled(app, client, smtp_server, spellings):
    cfg_of(app).LIMIT_UNASKED_PER_ADDRESS_DAY = 2
    for address in spellings:
        assert client.post("/new", data=form(your_email=address, players="bot:greedy")).status_code == 303
    deliver(app)
    assert sum(len(received(smtp_server, a.lower())) for a in spellings) == 2


def test_an_address_that_answered_once_has_the_larger_budget(app, client, smtp_server):
    cfg = cfg_of(app)
    cfg.LIMIT_UNASKED_PER_ADDRESS_DAY, cfg.LIMIT_UNASKED_PER_KNOWN_ADDRESS_DAY = 1, 3
    client.post("/new", data=form(players="bot:greedy"))
    deliver(app)
    client.post(confirm_path(app, proposal_of(app)))  # Ann answered: she reads her mail
    for n in range(4):
        client.post("/new", data=form(players=f"bot:random\nP{n} <p{n}@example.com>"))
    deliver(app)
    assert subjects(smtp_server, ANN).count(CONFIRM_SUBJECT + "Friday game") == 2  # 1 + 3 a day in all
    with Session(db_of(app)) as s:
        assert s.get(AddressStanding, ANN).answered_at is not None


def test_the_first_email_to_an_unknown_address_carries_only_names_cut_short(app, client, smtp_server):
    long_name = "Click www.evil.example to claim your prize"[:40]
    client.post("/new", data=form(your_name=long_name, name="FREE MONEY at evil.example",
                                  players=f"{long_name[::-1]} <{BOB}>"))
    deliver(app)
    (confirmation,) = received(smtp_server, ANN)
    text = bodies(confirmation) + str(confirmation["Subject"])
    assert "FREE MONEY" not in text and "evil.example" not in text
    assert letters.short(long_name) in text and len(letters.short(long_name)) == letters.SHORT_NAME
    assert letters.not_me_url(cfg_of(app), ANN) in text
    client.post(confirm_path(app, proposal_of(app)))
    deliver(app)
    (invitation,) = received(smtp_server, BOB)
    text = bodies(invitation) + str(invitation["Subject"])
    assert "FREE MONEY" not in text and "evil.example" not in text and letters.not_me_url(cfg_of(app), BOB) in text


def test_an_address_that_answered_reads_the_game_as_named(app, client, smtp_server):
    client.post("/new", data=form(players="bot:greedy"))
    deliver(app)
    client.post(confirm_path(app, proposal_of(app)))
    client.post("/new", data=form(players="bot:random", name="Tortuga"))
    deliver(app)
    assert CONFIRM_SUBJECT + "A new game" in subjects(smtp_server, ANN)  # before she answered
    assert CONFIRM_SUBJECT + "Tortuga" in subjects(smtp_server, ANN)


@pytest.mark.parametrize("kind", ["confirm_game", "invitation", "my_games_link"])
def test_every_email_an_address_did_not_ask_for_offers_i_did_not_ask_for_this(app, client, smtp_server, kind):
    start_game(app, [f"Bob <{BOB}>", "bot:greedy"], seed=2)
    if kind == "confirm_game":
        client.post("/new", data=form(your_email=BOB, players="bot:greedy"))
    elif kind == "invitation":
        client.post("/new", data=form())
        client.post(confirm_path(app, proposal_of(app)))
    else:
        client.post("/me", data={"email": BOB})
    deliver(app)
    (message,) = [m for m in received(smtp_server, BOB) if m["Message-ID"] in
                  {r.message_id for r in outbox(app, kind=kind)}]
    url = letters.not_me_url(cfg_of(app), BOB)
    assert url in message.get_body(("plain",)).get_content()
    assert f'href="{url}"' in message.get_body(("html",)).get_content()


def test_i_did_not_ask_for_this_asks_first_then_blocks_requests_but_not_games(app, client, smtp_server):
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=7)
    deliver(app)
    page = client.get(not_me_path(app, BOB))
    assert page.status_code == 200 and 'data-blocked="no"' in page.text and 'method="post"' in page.text
    assert client.head(not_me_path(app, BOB)).status_code == 200
    assert rows(app, AddressStanding) == []  # looking changed nothing
    done = client.post(not_me_path(app, BOB), data={"action": "block"})
    assert done.status_code == 200 and 'data-blocked="yes"' in done.text
    before = len(received(smtp_server, BOB))
    client.post("/me", data={"email": BOB})
    client.post("/new", data=form(your_email="bob+again@example.com", players="bot:greedy"))
    client.post("/new", data=form(your_name="Cat", your_email=CAT, players=f"Bob <{BOB}>"))
    client.post(confirm_path(app, proposal_of(app, CAT)))
    deliver(app)
    assert len(received(smtp_server, BOB)) == before  # no request of anyone's reached him
    bob = next(i for i in rows(app, Invitation) if i.email == BOB)
    assert (bob.status, bob.invited_at) == (InvitationStatus.DECLINED, None)  # Cat may replace him
    assert "cannot be invited" in client.get(path(app, links.proposal_url(
        cfg_of(app), proposal_of(app, CAT).id, proposal_of(app, CAT).nonce))).text
    seat = seats(app, game_id)[1]
    assert not seat.left_game and not seat.handed_to_bot  # his game goes on, unlike "never"
    again = client.post(not_me_path(app, BOB), data={"action": "allow"})
    assert again.status_code == 200 and 'data-blocked="no"' in again.text
    client.post("/me", data={"email": BOB})
    deliver(app)
    assert subjects(smtp_server, BOB)[-1] == "[Korsar] Your link to your games"


def test_blocking_drops_the_unconfirmed_games_set_up_in_the_addresss_name(app, client):
    client.post("/new", data=form())
    block(app, client, ANN)
    assert proposal_of(app).status == ProposalStatus.EXPIRED
    assert client.post(confirm_path(app, proposal_of(app))).status_code == 410


@pytest.mark.parametrize("action", ["", "unblock", "BLOCK"])
def test_the_not_me_page_takes_only_its_buttons(app, client, action):
    response = client.post(not_me_path(app, BOB), data={"action": action} if action else {})
    assert response.status_code == 422 and rows(app, AddressStanding) == []


def test_a_damaged_not_me_link_is_400(client):
    assert client.get("/not-me/nonsense").status_code == 400
    assert client.post("/not-me/nonsense", data={"action": "block"}).status_code == 400


# ---------------------------------------------------------------- 6. quotas nobody else can use up
def test_rematches_count_against_their_creator_only_and_a_friends_game_still_reaches_the_address(app, client):
    game_id = finished_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"])
    refused = 0
    for _ in range(5):  # Ann asks for a rematch, cancels it, asks again...
        response = client.post(seat_path(app, game_id, 0) + "/rematch")
        if response.status_code == 429:
            refused += 1
            continue
        manage = path(app, response.headers["Location"])
        assert client.post(manage + "/cancel").status_code == 303
    assert refused == 5 - cfg_of(app).LIMIT_INVITATIONS_PER_PAIR_DAY  # Ann's own number to Bob
    client.post("/new", data=form(your_name="Cat", your_email=CAT, players=f"Bob <{BOB}>"))
    assert client.post(confirm_path(app, proposal_of(app, CAT))).status_code == 303
    assert [m.kind for m in outbox(app, to_addr=BOB)].count("invitation") == 4


def test_invitations_between_players_who_played_together_leave_the_invitees_budget_alone(engine, cfg):
    cfg.LIMIT_UNASKED_PER_ADDRESS_DAY = cfg.LIMIT_INVITATIONS_PER_ADDRESS_DAY = 1
    with session_scope(engine) as s:
        from pbem.games.service import create_game

        create_game(s, cfg, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=1)
    for n in range(2):  # Ann, who played with Bob, invites him twice
        _confirmed(engine, cfg, ANN, f"Bob <{BOB}>\nP{n} <p{n}@example.com>")
    _confirmed(engine, cfg, CAT, f"Bob <{BOB}>")  # a stranger to Bob still has his one
    with pytest.raises(LimitReached):
        _confirmed(engine, cfg, DAN, f"Bob <{BOB}>")
    with session_scope(engine) as s:
        invited = s.exec(select(Invitation).where(Invitation.email == BOB,
                                                  col(Invitation.invited_at).is_not(None))).all()
    assert len(invited) == 3


def test_one_rematch_of_a_game_at_a_time(app, client):
    game_id = finished_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"])
    first = client.post(seat_path(app, game_id, 0) + "/rematch")
    again = client.post(seat_path(app, game_id, 0) + "/rematch")  # a double click: the same one
    assert first.status_code == again.status_code == 303
    assert path(app, first.headers["Location"]).split(".")[0] == path(app, again.headers["Location"]).split(".")[0]
    other = client.post(seat_path(app, game_id, 1) + "/rematch")
    assert other.status_code == 409 and "invitation is in your email" in other.text
    assert len(rows(app, Proposal)) == 1


def _confirmed(engine: Any, cfg: Any, creator: str, players: str) -> None:
    with session_scope(engine) as s:
        proposal = proposals.propose_game(s, cfg, your_name=creator[:3].title(), your_email=creator,
                                          players=players, form_id=proposals.new_form_id())
        token = links.sign_record(cfg, links.CONFIRM_SALT, proposal.id, proposal.nonce)
    with session_scope(engine) as s:
        proposals.confirm_proposal(s, cfg, token)


# ---------------------------------------------------------------- 7. no oracles
def test_the_form_answers_the_same_whoever_said_never_and_the_confirmation_step_tells_the_creator(app, client):
    never(app, BOB)
    block(app, client, CAT)
    answers = [client.post("/new", data=form(players=f"Bob <{BOB}>\nCat <{CAT}>\nDan <{DAN}>")),
               client.post("/new", data=form(players="Eve <eve@example.com>\nFay <fay@example.com>"))]
    assert [(a.status_code, a.headers["Location"]) for a in answers] == [(303, "/new/sent")] * 2
    first = next(p for p in rows(app, Proposal) if p.name == "Friday game" and p.id == min(
        q.id for q in rows(app, Proposal)))
    page = client.get(confirm_path(app, first)).text
    assert page.count("data-unreachable") == 2
    assert client.post(confirm_path(app, first)).status_code == 303
    assert [m.to_addr for m in outbox(app, kind="invitation")] == [DAN]


def _statements(app: Any, send: Any) -> list[str]:
    """The SQL statements one request runs, in order (their parameters aside)."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    event.listen(db_of(app), "before_cursor_execute", record)
    try:
        send()
    finally:
        event.remove(db_of(app), "before_cursor_execute", record)
    return seen


@pytest.fixture
def addresses_of_every_standing(app: Any, client: Any) -> Iterator[dict[str, str]]:
    """An address that plays and answered, one that plays, one that said never, one that said
    "I did not ask for this", and one we never heard of."""
    start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>", f"Cat <{CAT}>", f"Dan <{DAN}>"], seed=3)
    with session_scope(db_of(app)) as s:
        unasked_mail.answered(s, ANN, now=utcnow())
    never(app, CAT)
    block(app, client, DAN)
    yield {"answered": ANN, "plays": BOB, "never": CAT, "blocked": DAN, "unknown": "nobody@example.com"}


def test_asking_for_my_games_does_the_same_work_whoever_the_address_is(app, client, addresses_of_every_standing):
    client.post("/me", data={"email": "warm@example.com"})  # connections and caches warmed
    work = {standing: _statements(app, lambda address=address: client.post("/me", data={"email": address}))
            for standing, address in addresses_of_every_standing.items()}
    assert len({tuple(statements) for statements in work.values()}) == 1, work
    assert len(outbox(app, kind="my_games_link")) == 6  # every ask queued; the worker decides


def test_setting_up_a_game_does_the_same_work_whoever_the_creator_is(app, client, addresses_of_every_standing):
    bots = "bot:greedy\nbot:random"
    client.post("/new", data=form(your_email="warm@example.com", players=bots))
    work = {standing: _statements(app, lambda address=address: client.post(
        "/new", data=form(your_email=address, players=bots)))
        for standing, address in addresses_of_every_standing.items()}
    assert len({tuple(statements) for statements in work.values()}) == 1, work
    assert all(statements for statements in work.values())


def test_the_worker_writes_my_games_only_for_an_address_that_plays_and_may_be_mailed(
        app, client, smtp_server, addresses_of_every_standing):
    for address in addresses_of_every_standing.values():
        client.post("/me", data={"email": address})
    deliver(app)
    reasons = {m.to_addr: (m.status, m.last_error) for m in outbox(app, kind="my_games_link")}
    assert reasons == {
        ANN: (OutboxStatus.SENT, None), BOB: (OutboxStatus.SENT, None),
        CAT: (OutboxStatus.CANCELLED, suppression.NEVER_AGAIN),
        DAN: (OutboxStatus.CANCELLED, unasked_mail.BLOCKED),
        "nobody@example.com": (OutboxStatus.CANCELLED, my_games.PLAYS_NOTHING)}


# ---------------------------------------------------------------- 8a. one proposal per form
def test_one_form_sent_again_is_one_proposal_and_one_email(app, client, smtp_server):
    sent = form()
    answers = [client.post("/new", data=sent) for _ in range(3)]
    assert {(a.status_code, a.headers["Location"]) for a in answers} == {(303, "/new/sent")}
    assert len(rows(app, Proposal)) == 1
    deliver(app)
    assert len(received(smtp_server, ANN)) == 1


def test_a_form_changed_and_sent_again_is_another_proposal(app, client):
    sent = form()
    client.post("/new", data=sent)
    client.post("/new", data={**sent, "name": "Saturday game"})  # the back button, a correction
    assert sorted(p.name for p in rows(app, Proposal)) == ["Friday game", "Saturday game"]


def test_a_form_sent_again_after_its_game_was_confirmed_says_so(app, client):
    sent = form()
    client.post("/new", data=sent)
    client.post(confirm_path(app, proposal_of(app)))
    again = client.post("/new", data=sent)
    assert again.status_code == 422 and "This form was sent already" in again.text
    assert len(rows(app, Proposal)) == 1


def test_the_new_page_embeds_a_fresh_nonce_each_time(client):
    nonces = [re.search(r'name="form_id" value="([\w-]+)"', client.get("/new").text)[1] for _ in range(2)]
    assert nonces[0] != nonces[1] and proposals.FORM_ID.match(nonces[0])


def test_the_form_key_is_unique_in_the_database(app):
    """Not a check before the insert: two rows with one key cannot be stored at all."""
    from sqlalchemy.exc import IntegrityError

    now = utcnow()
    with pytest.raises(IntegrityError), session_scope(db_of(app)) as s:
        for _ in range(2):
            s.add(Proposal(creator_email=ANN, nonce="n", confirm_by=now, form_key="k" * 64))
            s.flush()


# ---------------------------------------------------------------- the migration's data
def test_the_migration_marks_rematch_seats_untyped_and_remembers_who_answered(database_url):
    from alembic import command
    from sqlalchemy import text
    from sqlmodel import SQLModel

    from pbem.db import create_all, make_engine
    from pbem.migrations import alembic_config, upgrade_database

    engine = make_engine(database_url)
    with engine.begin() as conn:
        SQLModel.metadata.drop_all(conn)
        conn.execute(text("DROP TABLE IF EXISTS alembic_version"))
    try:
        with engine.begin() as conn:
            command.upgrade(alembic_config(database_url, conn), "0009")
            conn.execute(text(
                "INSERT INTO game (id, name, status, teams, options_json, deck_json, state_json, version, created_at,"
                " updated_at, thread_id, deadline_hours, reminders, on_timeout, reminders_sent, table_talk)"
                " VALUES (1, 'g', 'finished', false, '{}', '[]', '{}', 0, '2026-01-01', '2026-01-01', '', 72,"
                " '', 'autoplay', 0, false)"))
            for pid, creator, confirmed, rematch_of in [(1, "A.nn+x@Gmail.com", "2026-01-02", None),
                                                        (2, "zed@example.com", None, None),
                                                        (3, "bob@example.com", "2026-01-03", 1)]:
                conn.execute(text(
                    "INSERT INTO proposal (id, status, creator_email, creator_position, nonce, language, name, teams,"
                    " options_json, deadline_hours, reminders, on_timeout, table_talk, created_at, confirm_by,"
                    " confirmed_at, updated_at, rematch_of) VALUES (:id, 'inviting', :c, 0, 'n', 'en', '', false,"
                    " '{}', 72, '', 'autoplay', false, '2026-01-01', '2026-01-02', :at, '2026-01-01', :r)"),
                    {"id": pid, "c": creator, "at": confirmed, "r": rematch_of})
            for iid, pid, status in [(1, 1, "accepted"), (2, 3, "invited")]:
                conn.execute(text(
                    "INSERT INTO invitation (id, proposal_id, position, name, email, kind, status, nonce, language,"
                    " created_at, invited_at, answered_at) VALUES (:id, :p, 1, 'X', :e, 'human', :s, 'n', 'en',"
                    " '2026-01-01', '2026-01-02', '2026-01-02')"),
                    {"id": iid, "p": pid, "e": ["cat@example.com", "dan@example.com"][iid - 1], "s": status})
        upgrade_database(database_url)  # as a deploy does (SQLite: foreign keys off while tables are copied)
        with engine.begin() as conn:
            standing = dict(conn.execute(text("SELECT key, answered_at FROM address_standing")).all())
            typed = dict(conn.execute(text("SELECT id, creator_typed FROM invitation")).all())
        assert set(standing) == {"ann@gmail.com", "cat@example.com"}  # bob's was a rematch, zed never confirmed
        assert {k: bool(v) for k, v in typed.items()} == {1: True, 2: False}
    finally:
        with engine.begin() as conn:
            for table in ("invitation", "proposal", "game"):
                conn.execute(text(f"DELETE FROM {table}"))
            SQLModel.metadata.drop_all(conn)
            conn.execute(text("DROP TABLE IF EXISTS alembic_version"))
        create_all(engine)
        engine.dispose()


def test_a_seat_row_keeps_its_address_for_the_rematch_invitation(app, client):
    """Names stand for people on the pages; the invitation still goes to the seat's address."""
    game_id = finished_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"])
    client.post(seat_path(app, game_id, 0) + "/rematch")
    assert [m.to_addr for m in outbox(app, kind="invitation")] == [BOB]
    with Session(db_of(app)) as s:
        assert {i.creator_typed for i in s.exec(select(Invitation))} == {False}
